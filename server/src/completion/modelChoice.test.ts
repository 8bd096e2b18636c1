/** Which model file the server tries, in which order, and what it tells the user when it falls back. */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings.js';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG } from '../modelStore/catalog.js';
import { controlPackManifest } from '../modelStore/controlPack.js';
import { machineKey, saveSpeedMeasurement } from '../modelStore/machineSpeed.js';
import { writeVerifiedMark } from '../modelStore/sidecar.js';
import { planModel } from './modelChoice.js';

let cacheDir: string;
const BUNDLED = '/repo/models/default/reposhapley-small.gguf';
/** `bundled` null: this build ships no small model. */
const inputs = (bundled: string | null = BUNDLED, env: NodeJS.ProcessEnv = {}) => ({ env, bundled: () => bundled ?? undefined });
const settings = (patch: Partial<typeof DEFAULT_SETTINGS> = {}) => ({ ...DEFAULT_SETTINGS, modelCacheDir: cacheDir, ...patch });
const defaultEntry = MODEL_CATALOG.find((entry) => entry.name === DEFAULT_MODEL_NAME)!;
const pulledPath = () => path.join(cacheDir, defaultEntry.fileName);

beforeEach(() => {
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'model-choice-'));
});
afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

/** A file in the cache marked verified against the catalog pin (the bytes do not matter here: no hashing at plan time). */
async function pretendPulled(): Promise<void> {
  writeFileSync(pulledPath(), 'verified bytes');
  await writeVerifiedMark(pulledPath(), defaultEntry.sha256);
}

test('the modelPath setting wins over everything and has no fallback', async () => {
  await pretendPulled();
  const plan = planModel(settings({ modelPath: '/models/mine.gguf' }), inputs(BUNDLED, { REPOSHAPLEY_MODEL: '/env.gguf' }));
  expect(plan).toEqual({ candidates: [{ path: '/models/mine.gguf', label: 'mine.gguf', isFallback: false }] });
});

test.each([
  ['relative', 'models/mine.gguf', /is not an absolute path/],
  ['http URL', 'http://example.com/model.gguf', /is a URL; it takes a GGUF file on this machine/],
  ['file URL', 'file:///models/mine.gguf', /is a URL/],
])('a %s modelPath is refused with the reason, and no other model is used in its place', (_kind, value, message) => {
  const plan = planModel(settings({ modelPath: value }), inputs());
  expect(plan.notice).toMatch(message);
  expect(plan.candidates).toEqual([]);
});

test('a pulled model with its control pack applied comes first, the base behind it', async () => {
  await pretendPulled();
  const packs = mkdtempSync(path.join(os.tmpdir(), 'packs-'));
  const packDir = path.join(packs, DEFAULT_MODEL_NAME);
  mkdirSync(packDir);
  const rows = Buffer.alloc(2 * 32 * 4);
  const pack = {
    format: 'reposhapley-control-pack/1', base: { model: DEFAULT_MODEL_NAME, sha256: defaultEntry.sha256, sizeBytes: 1 }, hidden: 32,
    tokens: [{ text: '<NEED>', id: 1 }], rows: { file: 'rows.f32', sha256: createHash('sha256').update(rows).digest('hex') },
    trained: true, needThreshold: 0.5, layout: 'repo-fim', derived: { fileName: 'derived.gguf', sha256: 'd'.repeat(64), sizeBytes: 1 },
  };
  writeFileSync(path.join(packDir, 'rows.f32'), rows);
  writeFileSync(path.join(packDir, 'pack.json'), JSON.stringify(pack));
  const plan = () => planModel(settings(), { ...inputs(), controlPack: (name) => controlPackManifest(name, packs) });
  // Trained but not applied yet: the base, and a notice that a pull applies it.
  expect(plan().candidates[0]!.path).toBe(pulledPath());
  expect(plan().notice).toMatch(/trained RepoShapley control tokens that are not applied yet/);
  writeFileSync(path.join(cacheDir, 'derived.gguf'), 'derived bytes');
  await writeVerifiedMark(path.join(cacheDir, 'derived.gguf'), 'd'.repeat(64));
  expect(plan().candidates.map((c) => [c.label, c.isFallback])).toEqual([
    [`${DEFAULT_MODEL_NAME}+control`, false], [DEFAULT_MODEL_NAME, false], ['reposhapley-small.gguf', true],
  ]);
  expect(plan().candidates[0]!.adapterPath).toBeUndefined();
  // A pack with a LoRA adapter: the derived model loads with it, and says so in its label.
  writeFileSync(path.join(packDir, 'pack.json'), JSON.stringify({ ...pack, adapter: { file: 'adapter.gguf', sha256: 'a'.repeat(64) } }));
  expect(plan().candidates[0]).toMatchObject({ label: `${DEFAULT_MODEL_NAME}+control+lora`, adapterPath: expect.stringMatching(/adapter\.gguf$/) });
  expect(plan().candidates[1]!.adapterPath).toBeUndefined();
  rmSync(packs, { recursive: true, force: true });
});

test('a pulled model with an adapter pack and no control pack: the base with the adapter first, then without', async () => {
  await pretendPulled();
  const adapterPath = `/packs/${DEFAULT_MODEL_NAME}/adapter.gguf`;
  const plan = planModel(settings({ model: DEFAULT_MODEL_NAME }), {
    ...inputs(), controlPack: () => undefined, baseAdapter: (name) => (name === DEFAULT_MODEL_NAME ? adapterPath : undefined),
  });
  expect(plan.candidates.map((c) => [c.label, c.path, c.adapterPath])).toEqual([
    [`${DEFAULT_MODEL_NAME}+lora`, pulledPath(), adapterPath], [DEFAULT_MODEL_NAME, pulledPath(), undefined], ['reposhapley-small.gguf', BUNDLED, undefined],
  ]);
});

test('REPOSHAPLEY_MODEL comes next', () => {
  expect(planModel(settings(), inputs(BUNDLED, { REPOSHAPLEY_MODEL: '/env/model.gguf' })).candidates)
    .toEqual([{ path: '/env/model.gguf', label: 'model.gguf', isFallback: false }]);
});

test('a pulled and verified default model is tried first, the bundled model after it', async () => {
  await pretendPulled();
  const plan = planModel(settings(), inputs());
  expect(plan.notice).toBeUndefined();
  expect(plan.candidates).toMatchObject([
    { path: pulledPath(), label: DEFAULT_MODEL_NAME, isFallback: false, repair: expect.stringMatching(/model pull qwen2\.5-coder-0\.5b --verify/) },
    { path: BUNDLED, label: 'reposhapley-small.gguf', isFallback: true },
  ]);
});

test.each([
  ['not pulled', async () => {}, /not downloaded yet: run "reposhapley model pull qwen2\.5-coder-0\.5b"/],
  ['truncated after its pull', async () => { await pretendPulled(); truncateSync(pulledPath(), 3); }, /is not verified .*model pull/],
  ['a file nobody verified', async () => { writeFileSync(pulledPath(), 'unverified'); }, /is not verified/],
])('default model %s: the bundled model stands in, and the notice says how to pull', async (_, arrange, why) => {
  await arrange();
  const plan = planModel(settings(), inputs());
  expect(plan.candidates).toEqual([{ path: BUNDLED, label: 'reposhapley-small.gguf', isFallback: true }]);
  expect(plan.notice).toMatch(why);
  expect(plan.notice).toMatch(/small bundled model/);
});

test('a model name not in the catalog falls back and lists the known names', () => {
  const plan = planModel(settings({ model: 'gpt-17' }), inputs());
  expect(plan.candidates.map((c) => c.isFallback)).toEqual([true]);
  expect(plan.notice).toMatch(/unknown model "gpt-17"; known models: qwen2\.5-coder-0\.5b \(default\), qwen2\.5-coder-1\.5b/);
});

test('nothing pulled and nothing bundled: no candidates, and the notice does not promise a fallback', () => {
  const plan = planModel(settings(), inputs(null));
  expect(plan.candidates).toEqual([]);
  expect(plan.notice).toMatch(/not downloaded yet/);
  expect(plan.notice).not.toMatch(/bundled/);
});

describe('model auto', () => {
  const largeEntry = MODEL_CATALOG.find((entry) => entry.name === 'qwen2.5-coder-1.5b')!;
  const picks = (model: string, unmeasured = false) => () => ({ model, reason: `${model}: measured here`, predictions: [], unmeasured });

  test('plans the model auto picks, and says why', async () => {
    await pretendPulled();
    const plan = planModel(settings({ model: 'auto' }), { ...inputs(), autoChoice: picks(DEFAULT_MODEL_NAME) });
    expect(plan.candidates[0]).toMatchObject({ label: DEFAULT_MODEL_NAME, isFallback: false });
    expect(plan).toMatchObject({ catalogModel: DEFAULT_MODEL_NAME, chosenBy: `auto: ${DEFAULT_MODEL_NAME}: measured here` });
    expect(plan.notice).toBeUndefined();
  });

  test('a larger pick not pulled yet: the smaller pulled model stands in and the pick is offered', async () => {
    await pretendPulled();
    const plan = planModel(settings({ model: 'auto' }), { ...inputs(), autoChoice: picks(largeEntry.name) });
    expect(plan.candidates[0]).toMatchObject({ label: DEFAULT_MODEL_NAME, isFallback: false });
    expect(plan.pullable).toEqual({ name: largeEntry.name, sizeBytes: largeEntry.sizeBytes, license: largeEntry.license });
    expect(plan.notice).toMatch(/auto picks qwen2\.5-coder-1\.5b on this machine; it is not downloaded yet: .*pull qwen2\.5-coder-1\.5b.*; until then completions use qwen2\.5-coder-0\.5b\./);
    expect(plan.chosenBy).toBe('auto: qwen2.5-coder-1.5b: measured here');
  });

  test('nothing pulled and nothing measured: the bundled model, the smallest offered, the measurement owed', () => {
    const plan = planModel(settings({ model: 'auto' }), { ...inputs(), autoChoice: picks(DEFAULT_MODEL_NAME, true) });
    expect(plan.candidates.map((c) => c.isFallback)).toEqual([true]);
    expect(plan).toMatchObject({ pullable: { name: DEFAULT_MODEL_NAME }, speedUnmeasured: true });
  });

  test('reads the measurements in the model cache: the threads setting picks which hold', async () => {
    await pretendPulled();
    saveSpeedMeasurement(cacheDir, {
      model: DEFAULT_MODEL_NAME, machine: machineKey(), threads: 1, runtime: 'test', loadMs: 500, promptTokensPerSecond: 5_000, shortPromptTokensPerSecond: 2_500,
      generatedTokensPerSecond: 500, loadAverage: 0, measuredAt: '2026-12-06T00:00:00.000Z',
    });
    expect(planModel(settings({ model: 'auto', threads: 1 }), inputs()).pullable?.name).toBe(largeEntry.name);
    expect(planModel(settings({ model: 'auto', threads: 2 }), inputs())).toMatchObject({ speedUnmeasured: true, catalogModel: DEFAULT_MODEL_NAME });
  });
});
