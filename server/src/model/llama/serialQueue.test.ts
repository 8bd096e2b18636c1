import { describe, expect, test } from 'vitest';
import { SerialQueue } from './serialQueue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('SerialQueue', () => {
  test('runs operations one at a time in call order', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    const op = (name: string) => async () => {
      events.push(`${name} start`);
      await tick();
      events.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([queue.run(undefined, op('a')), queue.run(undefined, op('b')), queue.run(undefined, op('c'))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  test('a failing operation does not block the next one', async () => {
    const queue = new SerialQueue();
    const failing = queue.run(undefined, async () => { throw new Error('boom'); });
    const next = queue.run(undefined, async () => 'ok');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('ok');
  });

  test('an operation aborted while queued settles at once and never runs', async () => {
    const queue = new SerialQueue();
    let release!: () => void;
    const blocker = queue.run(undefined, () => new Promise<string>((resolve) => (release = () => resolve('first'))));
    const controller = new AbortController();
    let ran = false;
    const withFallback = queue.run(controller.signal, async () => { ran = true; return 'ran'; }, () => 'aborted');
    const withoutFallback = queue.run(controller.signal, async () => { ran = true; return 'ran'; });
    const after = queue.run(undefined, async () => 'after');
    controller.abort();
    expect(await withFallback).toBe('aborted');
    await expect(withoutFallback).rejects.toMatchObject({ name: 'AbortError' });
    release();
    expect(await blocker).toBe('first');
    expect(await after).toBe('after');
    expect(ran).toBe(false);
  });

  test('work queued behind an aborted operation still waits for the running one', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let release!: () => void;
    const blocker = queue.run(undefined, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      events.push('blocker done');
    });
    const aborted = queue.run(AbortSignal.abort(), async () => undefined, () => 'aborted');
    const after = queue.run(undefined, async () => { events.push('after ran'); });
    expect(await aborted).toBe('aborted');
    await tick();
    expect(events).toEqual([]);
    release();
    await Promise.all([blocker, after]);
    expect(events).toEqual(['blocker done', 'after ran']);
  });
});
