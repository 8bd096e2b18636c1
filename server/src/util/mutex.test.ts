import { expect, test } from 'vitest';
import { Mutex } from './mutex.js';

test('waiters run in order and an aborted waiter leaves the queue at once', async () => {
  const mutex = new Mutex();
  const order: string[] = [];
  const releaseFirst = (await mutex.acquire())!;
  const aborted = new AbortController();
  const second = mutex.acquire(aborted.signal);
  const third = mutex.acquire().then((release) => { order.push('third'); release!(); });
  aborted.abort();
  expect(await second).toBeUndefined();
  order.push('first');
  releaseFirst();
  await third;
  expect(order).toEqual(['first', 'third']);
  expect(await mutex.acquire(AbortSignal.abort())).toBeUndefined();
});
