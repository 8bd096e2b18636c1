import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FakeEngine } from '../../../test/lsp/fakeEngine.js';
import { silentLogger } from '../util/logger.js';
import { NO_MODEL_HELP, positionProblem, runComplete } from './complete.js';
import { formatStats, runIndex } from './indexCommand.js';
import { EXIT_FAILURE, EXIT_NO_MODEL, EXIT_OK } from './output.js';

function workspace(): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'reposhapley-cli-'));
  writeFileSync(path.join(dir, 'pyproject.toml'), '');
  const file = path.join(dir, 'm.py');
  writeFileSync(file, 'import os\nos.path.\n');
  return { dir, file };
}

function harness(engineOptions: ConstructorParameters<typeof FakeEngine>[0] = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const engines: FakeEngine[] = [];
  const deps = {
    logger: silentLogger,
    output: { out: (line: string) => void out.push(line), err: (line: string) => void err.push(line) },
    createEngine: ({ settings }: { settings?: object }) => {
      const engine = new FakeEngine({ ...engineOptions, settings });
      engines.push(engine);
      return engine;
    },
    env: {},
    findBundledModel: () => undefined,
  };
  return { out, err, engines, deps };
}

describe('reposhapley complete', () => {
  test('without --model, REPOSHAPLEY_MODEL, a pulled or a bundled model: says how to get one, exit 2, no engine', async () => {
    const { file } = workspace();
    const { err, engines, deps } = harness();
    expect(await runComplete(`${file}:2:9`, {}, deps)).toBe(EXIT_NO_MODEL);
    expect(err.join('\n')).toMatch(/The model qwen2\.5-coder-0\.5b is not downloaded yet: run "reposhapley model pull qwen2\.5-coder-0\.5b"/);
    expect(err.join('\n').endsWith(NO_MODEL_HELP)).toBe(true);
    expect(NO_MODEL_HELP).toMatch(/model pull/);
    expect(NO_MODEL_HELP).toMatch(/--model PATH/);
    expect(NO_MODEL_HELP).toMatch(/REPOSHAPLEY_MODEL/);
    expect(engines).toHaveLength(0);
  });

  test('completes at the 1-based position and prints the completion and the trace', async () => {
    const { file } = workspace();
    const { out, engines, deps } = harness();
    const code = await runComplete(`${file}:2:9`, { model: '/m.gguf', policy: 'full', threads: 1 }, deps);
    expect(code).toBe(EXIT_OK);
    expect(out[0]).toBe('--- completion ---');
    expect(out[1]).toBe('completion_1_8');
    expect(out).toContain('--- trace ---');
    expect(out.some((line) => line.startsWith('timings: '))).toBe(true);
    expect(engines[0].settings).toMatchObject({ modelPath: '/m.gguf', policy: 'full', threads: 1 });
    expect(engines[0].completeCalls[0]).toMatchObject({ line: 1, character: 8, trigger: 'invoked' });
    expect(engines[0].disposed).toBe(true);
  });

  test('--model takes a catalog name when no such file exists', async () => {
    const { file } = workspace();
    const { engines, deps } = harness();
    await runComplete(`${file}:2:9`, { model: 'qwen2.5-coder-1.5b' }, { ...deps, findBundledModel: () => '/bundled.gguf' });
    expect(engines[0].settings).toMatchObject({ model: 'qwen2.5-coder-1.5b', modelPath: '' });
  });

  test('--model-server hands the model to a llama-server', async () => {
    const { file } = workspace();
    const { engines, deps } = harness();
    await runComplete(`${file}:2:9`, { modelServer: 'http://gpu-box:8080' }, deps);
    expect(engines[0].settings).toMatchObject({ modelServer: 'http://gpu-box:8080' });
  });

  test('--json prints the trace as JSON', async () => {
    const { file } = workspace();
    const { out, deps } = harness();
    expect(await runComplete(`${file}:2:9`, { model: '/m.gguf', json: true }, { ...deps, env: {} })).toBe(EXIT_OK);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ completion: 'completion_1_8', tokens: { generated: 3 } });
  });

  test('REPOSHAPLEY_MODEL counts as a configured model; a no-model outcome exits 2', async () => {
    const { file } = workspace();
    const { err, deps } = harness({ noModel: true });
    expect(await runComplete(`${file}:1:1`, {}, { ...deps, env: { REPOSHAPLEY_MODEL: '/missing.gguf' } })).toBe(EXIT_NO_MODEL);
    expect(err.filter((line) => line.includes('No model'))).toHaveLength(1);
  });

  test.each([['bad location', 'nowhere'], ['missing file', '/no/such/file.py:1:1'], ['line past the end', 'FILE:9:1']])(
    '%s exits 1', async (_name, location) => {
      const { file } = workspace();
      const { deps } = harness();
      expect(await runComplete(location.replace('FILE', file), { model: '/m.gguf' }, deps)).toBe(EXIT_FAILURE);
    },
  );

  test('positionProblem', () => {
    expect(positionProblem('ab\ncd', { file: '', line: 1, character: 2 })).toBeUndefined();
    expect(positionProblem('ab\ncd', { file: '', line: 2, character: 0 })).toMatch(/line 3/);
    expect(positionProblem('ab\r\ncd', { file: '', line: 0, character: 3 })).toMatch(/column 4/);
  });
});

describe('reposhapley index', () => {
  test('prints statistics, or JSON', async () => {
    const { dir } = workspace();
    const text = harness();
    expect(await runIndex(dir, {}, text.deps)).toBe(EXIT_OK);
    expect(text.out.join('\n')).toMatch(/files: +1: python 1\n +skipped: +0\n/);
    const json = harness();
    expect(await runIndex(dir, { json: true }, json.deps)).toBe(EXIT_OK);
    expect(JSON.parse(json.out.join('\n'))).toMatchObject({ files: 1, roots: [dir] });
    expect(formatStats(JSON.parse(json.out.join('\n')))[0]).toBe(`indexed ${dir}`);
  });

  test('files by language, most first, ties by name; none indexed prints no languages', () => {
    const stats = { roots: ['/w'], files: 6, skipped: 0, windows: 0, structuralChunks: 0, definitions: 0, lines: 0, bytes: 0, wallMs: 1, version: 1 };
    expect(formatStats({ ...stats, filesByLanguage: { go: 1, typescript: 4, rust: 1 } })[1]).toBe('  files:             6: typescript 4, go 1, rust 1');
    expect(formatStats({ ...stats, files: 0, filesByLanguage: {} })[1]).toBe('  files:             0');
  });

  test('skipped paths by reason, most first, with where to find each', () => {
    const stats = { roots: ['/w'], files: 1, filesByLanguage: { go: 1 }, windows: 0, structuralChunks: 0, definitions: 0, lines: 0, bytes: 0, wallMs: 1, version: 1 };
    expect(formatStats({ ...stats, skipped: 0, skippedByReason: {} })[2]).toBe('  skipped:           0');
    expect(formatStats({ ...stats, skipped: 4, skippedByReason: { binary: 1, 'deeply-nested': 1, minified: 2 } })[2])
      .toBe('  skipped:           4: minified 2, binary 1, deeply-nested 1 (REPOSHAPLEY_LOG=debug names each)');
  });

  test('a missing directory exits 1', async () => {
    const { deps, err } = harness();
    expect(await runIndex('/no/such/dir', {}, deps)).toBe(EXIT_FAILURE);
    expect(err[0]).toMatch(/not a directory/);
  });
});
