import { describe, expect, test } from 'vitest';
import { AGING_MS_PER_TOKEN, ComputeQueue } from './computeQueue.js';

/** A task that runs until `finish()` is called, recording that it started. */
function gate(started: string[], name: string): { task: () => Promise<string>; finish: () => void } {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: async () => { started.push(name); await done; return name; }, finish };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function recorder(started: string[], name: string): () => Promise<string> {
  return async () => {
    started.push(name);
    return name;
  };
}

describe('ComputeQueue', () => {
  test('one task at a time; the least work first, equals in arrival order', async () => {
    const queue = new ComputeQueue(() => 0);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.run(500, undefined, first.task);
    const waiting = [
      queue.run(700, undefined, recorder(started, 'cold prompt A')),
      queue.run(700, undefined, recorder(started, 'cold prompt B')),
      queue.run(60, undefined, recorder(started, 'keystroke')),
    ];
    await settle();
    expect(started).toEqual(['first']);
    expect(queue.depth).toBe(3);
    first.finish();
    await Promise.all([running, ...waiting]);
    expect(started).toEqual(['first', 'keystroke', 'cold prompt A', 'cold prompt B']);
  });

  test('a long wait ages a request ahead of shorter newcomers', async () => {
    let now = 0;
    const queue = new ComputeQueue(() => now);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.run(10, undefined, first.task);
    const long = queue.run(700, undefined, recorder(started, 'long'));
    now += 660 * AGING_MS_PER_TOKEN; // the long request now counts as 40 tokens of work
    const short = queue.run(60, undefined, recorder(started, 'short'));
    first.finish();
    await Promise.all([running, long, short]);
    expect(started).toEqual(['first', 'long', 'short']);
  });

  test('a request aborted while it waits never runs and rejects with the reason', async () => {
    const queue = new ComputeQueue();
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.run(100, undefined, first.task);
    const controller = new AbortController();
    const reason = new Error('typed on');
    const stale = queue.run(50, controller.signal, recorder(started, 'stale'));
    const fresh = queue.run(50, undefined, recorder(started, 'fresh'));
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
    expect((await queue.run(1, undefined, async () => 'next')).value).toBe('next');
  });

  test('waitedMs is the time spent behind other requests', async () => {
    let now = 0;
    const queue = new ComputeQueue(() => now);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.run(1, undefined, first.task);
    const second = queue.run(1, undefined, async () => 'second');
    now = 750;
    first.finish();
    expect((await running).waitedMs).toBe(0);
    expect(await second).toEqual({ value: 'second', waitedMs: 750 });
  });
});

describe('pausing a long evaluation', () => {
  test('a shorter request runs at the pause, then the long one resumes; equal or longer ones wait', async () => {
    let now = 0;
    const queue = new ComputeQueue(() => now);
    const steps: string[] = [];
    let releaseChunk!: () => void;
    const chunk = new Promise<void>((resolve) => (releaseChunk = resolve));
    const long = queue.run(800, undefined, async (turn) => {
      await turn.pause(800); // nobody waits: returns at once
      steps.push('long: chunk 1');
      await chunk;
      await turn.pause(600);
      steps.push('long: chunk 2');
      return 'long';
    });
    await settle();
    const other = queue.run(800, undefined, recorder(steps, 'another cold prompt'));
    const keystroke = queue.run(100, undefined, async () => {
      steps.push('keystroke');
      now += 100;
      return 'keystroke';
    });
    now += 250;
    releaseChunk();
    expect((await keystroke).waitedMs).toBe(250);
    expect(await long).toEqual({ value: 'long', waitedMs: 100 });
    await other;
    expect(steps).toEqual(['long: chunk 1', 'keystroke', 'long: chunk 2', 'another cold prompt']);
  });

  test('cancelled while paused: the pause rejects, the turn passes on, the queue stays consistent', async () => {
    const queue = new ComputeQueue();
    const steps: string[] = [];
    const controller = new AbortController();
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    const paused = queue.run(800, controller.signal, async (turn) => {
      await settle(); // let the short request queue up
      await turn.pause(800);
      steps.push('never resumed');
    });
    const short = queue.run(50, undefined, async () => {
      steps.push('short');
      await blocked;
    });
    await settle();
    await settle();
    controller.abort(new Error('typed on'));
    await expect(paused).rejects.toThrow('typed on');
    unblock();
    await short;
    expect((await queue.run(1, undefined, async () => 'next')).value).toBe('next');
    expect(steps).toEqual(['short']);
    expect(queue.depth).toBe(0);
  });
});
