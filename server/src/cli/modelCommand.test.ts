import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG } from '../modelStore/catalog.js';
import type { PullOutcome } from '../modelStore/outcome.js';
import { silentProgress } from '../modelStore/progress.js';
import type { PullOptions } from '../modelStore/pull.js';
import { writeVerifiedMark } from '../modelStore/sidecar.js';
import { readSpeedMeasurements } from '../modelStore/machineSpeed.js';
import { runModelList, runModelPath, runModelPull, runModelSpeed } from './modelCommand.js';
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
  const LARGE = MODEL_CATALOG.find((entry) => entry.name === 'qwen2.5-coder-1.5b')!;
  const pulledTo = (cacheDir: string) => async (name: string): Promise<PullOutcome> => {
    const entry = MODEL_CATALOG.find((e) => e.name === name)!;
    return { kind: 'ok', path: path.join(cacheDir, entry.fileName), source: 'pypi', sha256: entry.sha256, sizeBytes: entry.sizeBytes, fallbacks: [] };
  };
  /** A speed measurement as a machine of this speed gives it. */
  const machine = (promptTokensPerSecond: number) => async () => ({
    threads: 2, runtime: 'node-llama-cpp test cpu', loadMs: 500, promptTokensPerSecond, shortPromptTokensPerSecond: promptTokensPerSecond / 2,
    generatedTokensPerSecond: promptTokensPerSecond / 10, loadAverage: 0,
  });

  test('a name pulls that model into --cache-dir and prints only the path on stdout', async () => {
    const { out, err, calls, deps } = harness({ kind: 'ok', path: '/c/m.gguf', source: 'pypi', sha256: DEFAULT.sha256, sizeBytes: 491_400_064, fallbacks: [] });
    expect(await runModelPull(DEFAULT_MODEL_NAME, { cacheDir: '/c' }, deps)).toBe(EXIT_OK);
    expect(calls).toEqual([{ name: DEFAULT_MODEL_NAME, options: expect.objectContaining({ cacheDir: '/c', env: {} }) }]);
    expect(out).toEqual(['/c/m.gguf']);
    expect(err).toEqual([`${DEFAULT_MODEL_NAME}: fetched from pypi, SHA-256 verified, 491.4 MB, 2.5 s`]);
  });

  test.each([
    ['a slow machine', 200, [DEFAULT_MODEL_NAME, DEFAULT_MODEL_NAME], DEFAULT],
    ['a fast machine', 5_000, [DEFAULT_MODEL_NAME, LARGE.name], LARGE],
  ])('no name on %s: the smallest first, its speed measured, then what auto picks', async (_machine, speed, pulled, chosen) => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cli-auto-'));
    const { out, err, calls, deps } = harness();
    const pull = pulledTo(cacheDir);
    const measured: string[] = [];
    const run = { ...deps, resolveThreads: () => 2, pull: async (name: string) => (calls.push({ name, options: {} }), pull(name)),
      measure: async (file: { path: string }) => (measured.push(file.path), machine(speed)()) };
    expect(await runModelPull(undefined, { cacheDir }, run)).toBe(EXIT_OK);
    expect(calls.map((c) => c.name)).toEqual(pulled);
    expect(measured).toEqual([path.join(cacheDir, DEFAULT.fileName)]);
    expect(out).toEqual([path.join(cacheDir, chosen.fileName)]);
    expect(err.find((line) => line.startsWith('auto: '))).toMatch(new RegExp(`^auto: ${chosen.name.replaceAll('.', '\\.')}: \\d+ prompt tok/s`));
    // Measured once per machine: the next pull goes straight to the pick.
    calls.length = 0;
    expect(await runModelPull('auto', { cacheDir }, run)).toBe(EXIT_OK);
    expect(calls.map((c) => c.name)).toEqual([chosen.name]);
    expect(measured).toHaveLength(1);
  });

  test('a failure prints its code and message on stderr and exits 1', async () => {
    const { out, err, deps } = harness({ kind: 'error', code: 'no-pip', message: 'pip not found' });
    expect(await runModelPull('qwen2.5-coder-1.5b', {}, deps)).toBe(EXIT_FAILURE);
    expect(out).toEqual([]);
    expect(err).toEqual(['error (no-pip): pip not found']);
  });
});

describe('reposhapley model speed', () => {
  test('measures the pulled models, keeps the result, prints each prediction and the pick; a model not pulled is named', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cli-speed-'));
    const file = path.join(cacheDir, DEFAULT.fileName);
    writeFileSync(file, 'x');
    await writeVerifiedMark(file, DEFAULT.sha256);
    const { out, err, deps } = harness();
    const run = { ...deps, resolveThreads: () => 2,
      measure: async () => ({ threads: 2, runtime: 'node-llama-cpp test cpu', loadMs: 900, promptTokensPerSecond: 800,
        shortPromptTokensPerSecond: 192, generatedTokensPerSecond: 40, loadAverage: 0.1 }) };
    expect(await runModelSpeed([], { cacheDir }, run)).toBe(EXIT_OK);
    expect(err).toContain(`${DEFAULT_MODEL_NAME}: load 0.9 s, 800 prompt tok/s (192 on a short prompt), 40.0 generated tok/s (node-llama-cpp test cpu, load average 0.1)`);
    expect(out[0]).toMatch(/^qwen2\.5-coder-0\.5b: keystroke ~417 ms, cold start ~1\.8 s \(measured; targets 1000 ms, 5 s\)$/);
    expect(out[1]).toMatch(/^qwen2\.5-coder-1\.5b: .*\(scaled from qwen2\.5-coder-0\.5b;/);
    expect(out[2]).toMatch(/^auto \(2 threads\): qwen2\.5-coder-0\.5b: 800 prompt tok\/s measured, within the targets/);
    expect(readSpeedMeasurements(cacheDir)).toHaveLength(1);
    expect(await runModelSpeed(['qwen2.5-coder-1.5b'], { cacheDir }, run)).toBe(EXIT_FAILURE);
    expect(err.at(-1)).toMatch(/qwen2\.5-coder-1\.5b is not pulled; .*model pull qwen2\.5-coder-1\.5b/);
  });
});

describe('reposhapley model list / path', () => {
  test('list marks what auto picks (the smallest, before any measurement) and says which models are cached', async () => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cli-cache-'));
    const file = path.join(cacheDir, DEFAULT.fileName);
    writeFileSync(file, 'x');
    await writeVerifiedMark(file, DEFAULT.sha256);
    const { out, deps } = harness();
    expect(runModelList({ cacheDir }, deps)).toBe(EXIT_OK);
    expect(out[0]).toMatch(/^\* qwen2\.5-coder-0\.5b +491\.4 MB {2}Apache-2\.0 {2}cached {6}Qwen2\.5 Coder 0\.5B/);
    expect(out[1]).toMatch(/^ {2}qwen2\.5-coder-1\.5b +1117\.3 MB {2}Apache-2\.0 {2}not cached/);
    expect(out[2]).toBe(`(* = what model "auto" picks here: ${DEFAULT_MODEL_NAME}: this machine's speed is not measured yet (run "reposhapley model speed"); cache: ${cacheDir})`);
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
