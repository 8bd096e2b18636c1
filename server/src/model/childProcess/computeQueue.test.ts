import { describe, expect, test } from 'vitest';
import { ComputeQueue } from './computeQueue.js';

/** A task that runs until `finish()` is called, recording that it started. */
function gate(started: string[], name: string): { task: () => Promise<string>; finish: () => void } {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: async () => { started.push(name); await done; return name; }, finish };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ComputeQueue', () => {
  test('one task at a time; clients take turns, each client\'s newest request first', async () => {
    const queue = new ComputeQueue();
    const started: string[] = [];
    const a1 = gate(started, 'a1');
    const running = queue.run(1, undefined, a1.task);
    const waiting = [
      queue.run(1, undefined, async () => { started.push('a2'); return 'a2'; }),
      queue.run(1, undefined, async () => { started.push('a3'); return 'a3'; }),
      queue.run(2, undefined, async () => { started.push('b1'); return 'b1'; }),
      queue.run(3, undefined, async () => { started.push('c1'); return 'c1'; }),
    ];
    await settle();
    expect(started).toEqual(['a1']);
    expect(queue.depth).toBe(4);
    a1.finish();
    await Promise.all([running, ...waiting]);
    // After client 1: client 2, client 3, then client 1's newest (a3) before its older a2.
    expect(started).toEqual(['a1', 'b1', 'c1', 'a3', 'a2']);
  });

  test('a request aborted while it waits never runs and rejects with the reason', async () => {
    const queue = new ComputeQueue();
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.run(1, undefined, first.task);
    const controller = new AbortController();
    const reason = new Error('typed on');
    const stale = queue.run(2, controller.signal, async () => { started.push('stale'); return 'stale'; });
    const fresh = queue.run(2, undefined, async () => { started.push('fresh'); return 'fresh'; });
    controller.abort(reason);
    await expect(stale).rejects.toBe(reason);
    first.finish();
    await Promise.all([running, fresh]);
    expect(started).toEqual(['first', 'fresh']);
    expect(queue.depth).toBe(0);
  });

  test('already aborted: rejects at once; a failing task frees the queue', async () => {
    const queue = new ComputeQueue();
    await expect(queue.run(1, AbortSignal.abort(new Error('gone')), async () => 'never')).rejects.toThrow('gone');
    await expect(queue.run(1, undefined, async () => { throw new Error('native'); })).rejects.toThrow('native');
    expect((await queue.run(2, undefined, async () => 'next')).value).toBe('next');
  });

  test('waitedMs is the time spent behind other requests', async () => {
    let now = 0;
    const queue = new ComputeQueue(() => now);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.run(1, undefined, first.task);
    const second = queue.run(2, undefined, async () => 'second');
    now = 750;
    first.finish();
    expect((await running).waitedMs).toBe(0);
    expect(await second).toEqual({ value: 'second', waitedMs: 750 });
  });
});
