import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { silentLogger } from '../util/logger.js';
import type { CancellationLike } from './converters.js';
import { CompletionScheduler, type ScheduleResult } from './scheduler.js';

/** A cancellation token the test cancels by hand. */
class FakeToken implements CancellationLike {
  isCancellationRequested = false;
  private readonly listeners: (() => void)[] = [];
  onCancellationRequested(listener: () => void) {
    this.listeners.push(listener);
    return { dispose: () => void this.listeners.splice(this.listeners.indexOf(listener), 1) };
  }
  cancel(): void {
    this.isCancellationRequested = true;
    for (const listener of [...this.listeners]) listener();
  }
}

/** A task the test finishes by hand; records whether it started and whether it saw an abort. */
function controllableTask<T>(value: T) {
  const state = { started: false, sawAbort: false, finish: () => {} };
  const run = (signal: AbortSignal): Promise<T> => {
    state.started = true;
    return new Promise<T>((resolve) => {
      signal.addEventListener('abort', () => { state.sawAbort = true; });
      state.finish = () => resolve(value);
    });
  };
  return { state, run };
}

/** Whether a promise has settled, after letting queued microtasks run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => { settled = true; }, () => { settled = true; });
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

const never = new FakeToken();

describe('CompletionScheduler', () => {
  let debounceMs = 50;
  let scheduler: CompletionScheduler;

  beforeEach(() => {
    vi.useFakeTimers();
    debounceMs = 50;
    scheduler = new CompletionScheduler({ debounceMs: () => debounceMs, logger: silentLogger });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('debounce coalesces automatic requests for one document into the last one', async () => {
    const calls: number[] = [];
    const results = [1, 2, 3].map((n) =>
      scheduler.schedule('a.py', 'automatic', new FakeToken(), async () => { calls.push(n); return n; }));
    await vi.advanceTimersByTimeAsync(debounceMs + 1);
    expect(await Promise.all(results)).toEqual([
      { kind: 'cancelled', reason: 'superseded' },
      { kind: 'cancelled', reason: 'superseded' },
      { kind: 'done', value: 3 },
    ]);
    expect(calls).toEqual([3]);
  });

  test('an automatic request waits for the debounce before running', async () => {
    const task = vi.fn(async () => 'x');
    const result = scheduler.schedule('a.py', 'automatic', never, task);
    await vi.advanceTimersByTimeAsync(debounceMs - 1);
    expect(task).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(await result).toEqual({ kind: 'done', value: 'x' });
  });

  test('an invoked request skips the debounce', async () => {
    debounceMs = 60_000;
    const task = vi.fn(async () => 'now');
    const result = scheduler.schedule('a.py', 'invoked', never, task);
    await vi.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(1);
    expect(await result).toEqual({ kind: 'done', value: 'now' });
  });

  test('a newer request aborts the running one, which is answered at once', async () => {
    const old = controllableTask('old');
    const first = scheduler.schedule('a.py', 'invoked', never, old.run);
    await vi.advanceTimersByTimeAsync(0);
    expect(old.state.started).toBe(true);
    const second = scheduler.schedule('a.py', 'invoked', never, async () => 'fresh');
    expect(await isSettled(first)).toBe(true);
    expect(await first).toEqual({ kind: 'cancelled', reason: 'superseded' });
    expect(old.state.sawAbort).toBe(true);
    old.state.finish();
    expect(await second).toEqual({ kind: 'done', value: 'fresh' });
  });

  test('a request cancelled while its task runs is answered at once, and the task sees the abort', async () => {
    const running = controllableTask('b');
    const token = new FakeToken();
    const request = scheduler.schedule('b.py', 'invoked', token, running.run);
    await vi.advanceTimersByTimeAsync(0);
    expect(running.state.started).toBe(true);
    expect(await isSettled(request)).toBe(false);
    token.cancel();
    expect(await isSettled(request)).toBe(true);
    expect(await request).toEqual({ kind: 'cancelled', reason: 'client' });
    expect(running.state.sawAbort).toBe(true);
    running.state.finish(); // a late value is dropped: the caller was answered
  });

  test('a request cancelled during the debounce is answered at once', async () => {
    const token = new FakeToken();
    const task = vi.fn(async () => 'x');
    const result = scheduler.schedule('a.py', 'automatic', token, task);
    token.cancel();
    expect(await isSettled(result)).toBe(true);
    await vi.advanceTimersByTimeAsync(debounceMs * 2);
    expect(await result).toEqual({ kind: 'cancelled', reason: 'client' });
    expect(task).not.toHaveBeenCalled();
  });

  test('an already cancelled token is answered without running', async () => {
    const token = new FakeToken();
    token.cancel();
    const task = vi.fn(async () => 'x');
    expect(await scheduler.schedule('a.py', 'invoked', token, task)).toEqual({ kind: 'cancelled', reason: 'client' });
    expect(task).not.toHaveBeenCalled();
  });

  test('tasks of other documents are handed to the engine at once: the scheduler is no second queue', async () => {
    let running = 0;
    let maxRunning = 0;
    const task = (name: string) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((resolve) => setTimeout(resolve, 10));
      running--;
      return name;
    };
    const results = ['a.py', 'b.py', 'c.py'].map((key) => scheduler.schedule(key, 'invoked', never, task(key)));
    await vi.advanceTimersByTimeAsync(100);
    const values = (await Promise.all(results)).map((r: ScheduleResult<string>) => (r.kind === 'done' ? r.value : r.reason));
    expect(values).toEqual(['a.py', 'b.py', 'c.py']);
    // The engine's model lock serializes them (test/engine.test.ts); waiting twice added a queue.
    expect(maxRunning).toBe(3);
  });

  test('a failing task rejects its caller and the next one still runs', async () => {
    const failing = scheduler.schedule('a.py', 'invoked', never, async () => { throw new Error('boom'); });
    await expect(failing).rejects.toThrow('boom');
    expect(await scheduler.schedule('a.py', 'invoked', never, async () => 'next')).toEqual({ kind: 'done', value: 'next' });
  });

  test('dispose answers everything pending', async () => {
    const running = controllableTask('a');
    const first = scheduler.schedule('a.py', 'invoked', never, running.run);
    const second = scheduler.schedule('b.py', 'automatic', never, async () => 'b');
    scheduler.dispose();
    expect(await first).toEqual({ kind: 'cancelled', reason: 'shutdown' });
    expect(await second).toEqual({ kind: 'cancelled', reason: 'shutdown' });
  });

  test('supersede without a newer request answers the pending one', async () => {
    const pending = scheduler.schedule('a.py', 'automatic', never, async () => 'x');
    scheduler.supersede('a.py');
    expect(await pending).toEqual({ kind: 'cancelled', reason: 'superseded' });
  });
});
