/** ModelManager orchestration with a fake loader: retrying failed loads, retiring replaced models. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { CompletionModel, ModelInfo } from '../model/completionModel.js';
import { silentLogger } from '../util/logger.js';
import { Mutex } from '../util/mutex.js';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG } from '../modelStore/catalog.js';
import type { ControlPack } from '../modelStore/controlPack.js';
import { writeVerifiedMark } from '../modelStore/sidecar.js';
import { ModelManager, RETRY_CHECK_MS, type ModelLoader } from './modelManager.js';
import { settingsFrom } from './settings.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'model-manager-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function settings(modelPath: string, threads = 0) {
  return settingsFrom({ modelPath, threads });
}

/** A model that only records its disposal. */
function fakeModel(file: string): CompletionModel & { disposed: boolean } {
  return {
    info: { path: file, threads: 1, gpuLayers: 0, hasControlTokens: false, special: {}, echoLines: 0 } as unknown as ModelInfo,
    disposed: false,
    tokenize: () => [],
    detokenize: () => '',
    createSession: () => Promise.reject(new Error('not used')),
    async dispose() {
      this.disposed = true;
    },
  };
}

/** Loads whatever exists at the path (any bytes); counts its calls. */
function fileLoader(): ModelLoader & { calls: number } {
  const loader = Object.assign(async (options: { path: string }) => {
    loader.calls++;
    if (!existsSync(options.path)) return { kind: 'missing' as const, message: `Model file not found: ${options.path}` };
    return { kind: 'ok' as const, model: fakeModel(options.path) };
  }, { calls: 0 });
  return loader;
}

/** The default catalog model as pulled (verified mark written) with `content`, and a bundled fallback, in `dir`. */
async function pulledAndBundled(content: string) {
  const entry = MODEL_CATALOG.find((e) => e.name === DEFAULT_MODEL_NAME)!;
  const pulled = path.join(dir, entry.fileName);
  const bundled = path.join(dir, 'small.gguf');
  writeFileSync(pulled, content);
  await writeVerifiedMark(pulled, entry.sha256);
  writeFileSync(bundled, 'small model');
  return { entry, pulled, bundled };
}

test('a failed load is tried again once its file changed, looked at no more than every RETRY_CHECK_MS', async () => {
  let now = 1_000;
  const loader = fileLoader();
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), now: () => now });
  const file = path.join(dir, 'model.gguf');
  const current = settings(file);

  expect((await models.get(current)).kind).toBe('no-model');
  now += RETRY_CHECK_MS;
  expect((await models.get(current)).kind).toBe('no-model'); // unchanged: no new load
  expect(loader.calls).toBe(1);

  writeFileSync(file, 'model bytes');
  now += RETRY_CHECK_MS / 2;
  expect((await models.get(current)).kind).toBe('no-model'); // changed, but looked at too recently
  expect(loader.calls).toBe(1);
  now += RETRY_CHECK_MS;
  expect((await models.get(current)).kind).toBe('ok');
  expect(loader.calls).toBe(2);
  now += 10 * RETRY_CHECK_MS;
  expect((await models.get(current)).kind).toBe('ok'); // a loaded model is never reloaded by the check
  expect(loader.calls).toBe(2);
});

test('a replaced model leaves service at once and is disposed only when the model lock is free', async () => {
  const lock = new Mutex();
  const models = new ModelManager(fileLoader(), silentLogger, { lock });
  const file = path.join(dir, 'model.gguf');
  writeFileSync(file, 'model bytes');
  const first = await models.get(settings(file, 1));
  if (first.kind !== 'ok') throw new Error('expected a model');
  const old = first.model as ReturnType<typeof fakeModel>;

  const release = await lock.acquire(); // a completion is using the model
  const next = models.get(settings(file, 2));
  await new Promise((resolve) => setImmediate(resolve));
  expect(models.isCurrent(old)).toBe(false);
  expect(old.disposed).toBe(false);

  release!();
  const replaced = await next;
  expect(old.disposed).toBe(true);
  expect(replaced.kind === 'ok' && models.isCurrent(replaced.model)).toBe(true);
});

test('the pulled model failing to load: the bundled model answers, labelled fallback, and the notice says why', async () => {
  let now = 1_000;
  const { entry, pulled, bundled } = await pulledAndBundled('corrupt');
  const files = fileLoader();
  const loader: ModelLoader = async (options, logger) => (options.path === pulled && readFileSync(pulled, 'utf8') === 'corrupt'
    ? { kind: 'invalid', message: `${pulled} is not a valid GGUF file.` }
    : files(options, logger));
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), now: () => now, plan: { env: {}, bundled: () => bundled } });
  const current = settingsFrom({ modelCacheDir: dir });

  const first = await models.get(current);
  expect(first).toMatchObject({ kind: 'ok', label: 'small.gguf', isFallback: true });
  expect(first.kind === 'ok' && first.notice).toMatch(/is not a valid GGUF file\. Run "reposhapley model pull qwen2\.5-coder-0\.5b --verify"/);

  // The pulled file is repaired (pulled again): the next request after the check interval loads it.
  writeFileSync(pulled, 'good model');
  await writeVerifiedMark(pulled, entry.sha256);
  now += RETRY_CHECK_MS;
  const second = await models.get(current);
  expect(second).toMatchObject({ kind: 'ok', label: DEFAULT_MODEL_NAME, isFallback: false });
  expect(second.kind === 'ok' && second.notice).toBeUndefined();
});

test('a model that dies in service is replaced by the fallback and not loaded again until its file changes', async () => {
  let now = 1_000;
  const { entry, pulled, bundled } = await pulledAndBundled('model that crashes');
  const loaded: string[] = [];
  const dying = new Set<CompletionModel>();
  const loader: ModelLoader = async (options) => {
    loaded.push(path.basename(options.path));
    const model = fakeModel(options.path);
    // `failure` reads as the host process's state: set once it died.
    return { kind: 'ok', model: Object.defineProperty(model, 'failure', { get: () => (dying.has(model) ? 'the model process was killed by SIGABRT' : undefined) }) };
  };
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), now: () => now, plan: { env: {}, bundled: () => bundled } });
  const current = settingsFrom({ modelCacheDir: dir });

  const first = await models.get(current);
  expect(first).toMatchObject({ kind: 'ok', label: DEFAULT_MODEL_NAME, isFallback: false });
  if (first.kind !== 'ok') throw new Error('expected a model');
  dying.add(first.model);

  const second = await models.get(current);
  expect(second).toMatchObject({ kind: 'ok', label: 'small.gguf', isFallback: true });
  expect(second.kind === 'ok' && second.notice).toMatch(/stopped working: the model process was killed by SIGABRT\. It is not loaded again until its file changes/);
  expect((first.model as ReturnType<typeof fakeModel>).disposed).toBe(true);
  for (let i = 0; i < 5; i++) {
    now += RETRY_CHECK_MS;
    expect(await models.get(current)).toMatchObject({ label: 'small.gguf' });
  }
  expect(loaded).toEqual([entry.fileName, 'small.gguf']);

  writeFileSync(pulled, 'model pulled again');
  await writeVerifiedMark(pulled, entry.sha256);
  now += RETRY_CHECK_MS;
  expect(await models.get(current)).toMatchObject({ kind: 'ok', label: DEFAULT_MODEL_NAME, isFallback: false });
  expect(loaded).toEqual([entry.fileName, 'small.gguf', entry.fileName]);
});

test('a shared host stopped from outside: loaded again at once; a second stop within a minute sets the file aside', async () => {
  let now = 1_000;
  const { entry, bundled } = await pulledAndBundled('model whose host is killed');
  const loaded: string[] = [];
  const killed = new Set<CompletionModel>();
  const loader: ModelLoader = async (options) => {
    loaded.push(path.basename(options.path));
    const model = fakeModel(options.path);
    Object.defineProperty(model, 'failure', { get: () => (killed.has(model) ? 'the model process was killed by SIGKILL' : undefined) });
    return { kind: 'ok', model: Object.defineProperty(model, 'failureRetryable', { get: () => killed.has(model) }) };
  };
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), now: () => now, plan: { env: {}, bundled: () => bundled } });
  const current = settingsFrom({ modelCacheDir: dir });
  const kill = async () => {
    const state = await models.get(current);
    if (state.kind !== 'ok') throw new Error('expected a model');
    killed.add(state.model);
  };

  await kill();
  expect(await models.get(current)).toMatchObject({ kind: 'ok', label: DEFAULT_MODEL_NAME, isFallback: false });
  expect(loaded).toEqual([entry.fileName, entry.fileName]);
  now += 61_000; // a minute later, another stop is again no fault of the file
  await kill();
  expect(await models.get(current)).toMatchObject({ label: DEFAULT_MODEL_NAME, isFallback: false });
  now += 5_000; // but a third within the minute is a host that keeps dying
  await kill();
  const third = await models.get(current);
  expect(third).toMatchObject({ label: 'small.gguf', isFallback: true });
  expect(third.kind === 'ok' && third.notice).toMatch(/stopped working: the model process was killed by SIGKILL/);
  expect(loaded).toEqual([entry.fileName, entry.fileName, entry.fileName, 'small.gguf']);
});

test('the adapter setting reaches the model asked for, never the bundled fallback', async () => {
  const { pulled, bundled } = await pulledAndBundled('corrupt');
  const seen: { path: string; adapterPath?: string }[] = [];
  const files = fileLoader();
  const loader: ModelLoader = async (options, logger) => {
    seen.push({ path: options.path, adapterPath: options.adapterPath });
    return options.path === pulled ? { kind: 'invalid', message: 'adapter does not fit' } : files(options, logger);
  };
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), now: () => 1_000, plan: { env: {}, bundled: () => bundled } });

  const state = await models.get(settingsFrom({ modelCacheDir: dir, adapterPath: '/adapters/lora.gguf' }));
  expect(state).toMatchObject({ kind: 'ok', isFallback: true });
  expect(seen).toEqual([{ path: pulled, adapterPath: '/adapters/lora.gguf' }, { path: bundled, adapterPath: undefined }]);
});

test("a control pack's adapter loads with its derived model, unless the adapterPath setting names another", async () => {
  const { bundled } = await pulledAndBundled('good model');
  const derivedFile = path.join(dir, 'derived.gguf');
  writeFileSync(derivedFile, 'derived model');
  await writeVerifiedMark(derivedFile, 'd'.repeat(64));
  const pack = {
    format: 'reposhapley-control-pack/1', base: { model: DEFAULT_MODEL_NAME, sha256: 'b'.repeat(64), sizeBytes: 1 }, hidden: 32,
    tokens: [{ text: '<NEED>', id: 1 }], rows: { file: 'rows.f32', sha256: 'r'.repeat(64) }, trained: false, needThreshold: 0.5,
    layout: 'repo-fim', derived: { fileName: 'derived.gguf', sha256: 'd'.repeat(64), sizeBytes: 1 }, adapter: { file: 'adapter.gguf', sha256: 'a'.repeat(64) },
  } as unknown as ControlPack;
  const seen: { path: string; adapterPath?: string }[] = [];
  const files = fileLoader();
  const loader: ModelLoader = async (options, logger) => {
    seen.push({ path: options.path, adapterPath: options.adapterPath });
    return files(options, logger);
  };
  const plan = { env: {}, bundled: () => bundled, controlPack: () => pack };
  await new ModelManager(loader, silentLogger, { lock: new Mutex(), plan }).get(settingsFrom({ modelCacheDir: dir }));
  await new ModelManager(loader, silentLogger, { lock: new Mutex(), plan }).get(settingsFrom({ modelCacheDir: dir, adapterPath: '/mine.gguf' }));
  expect(seen).toEqual([
    { path: derivedFile, adapterPath: expect.stringMatching(new RegExp(`${DEFAULT_MODEL_NAME}/adapter\\.gguf$`)) },
    { path: derivedFile, adapterPath: '/mine.gguf' },
  ]);
});

test('only a file that hashed to its pin is loaded as hash-pinned: the pulled model, not a modelPath or the fallback', async () => {
  const { pulled, bundled } = await pulledAndBundled('good model');
  const pinned = new Map<string, boolean | undefined>();
  const files = fileLoader();
  const loader: ModelLoader = async (options, logger) => {
    pinned.set(path.basename(options.path), options.hashPinned);
    return options.path === pulled ? { kind: 'invalid', message: 'not loaded, to try the fallback too' } : files(options, logger);
  };
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), plan: { env: {}, bundled: () => bundled } });
  await models.get(settingsFrom({ modelCacheDir: dir }));
  const other = path.join(dir, 'other.gguf');
  writeFileSync(other, 'a model of the user');
  await models.get(settingsFrom({ modelPath: other }));
  expect(Object.fromEntries(pinned)).toEqual({ [path.basename(pulled)]: true, 'small.gguf': undefined, 'other.gguf': undefined });
});

test("model auto: measuring the speed again, with the same pick, keeps the loaded model; the state says why it was picked", async () => {
  const { bundled } = await pulledAndBundled('pulled bytes');
  const loader = fileLoader();
  let speed = 300;
  const autoChoice = () => ({ model: DEFAULT_MODEL_NAME, reason: `${DEFAULT_MODEL_NAME}: ${speed} prompt tok/s measured`, predictions: [], unmeasured: false });
  const models = new ModelManager(loader, silentLogger, { lock: new Mutex(), plan: { env: {}, bundled: () => bundled, autoChoice } });
  const current = settingsFrom({ model: 'auto', modelCacheDir: dir });
  const first = await models.get(current);
  expect(first).toMatchObject({ kind: 'ok', label: DEFAULT_MODEL_NAME, chosenBy: `auto: ${DEFAULT_MODEL_NAME}: 300 prompt tok/s measured` });
  speed = 320;
  expect(await models.get(current)).toBe(first);
  expect(loader.calls).toBe(1);
});
