import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRangeServer, type RangeServer } from '../../../test/support/rangeServer.js';
import { writeTinyModel, type TinyModel } from '../../../test/support/tinyModel.js';
import { readGgufHeader } from '../model/gguf/ggufReader.js';
import { GgmlType, decodeTensorData, type WritableGgmlType } from '../model/gguf/ggufTypes.js';
import { rowBytes } from '../model/gguf/patchGguf.js';
import { loadLlamaModel } from '../model/llama/loadLlamaModel.js';
import { CONTROL_TRAINED_KEY, LAYOUT_KEY, NEED_THRESHOLD_KEY, TRIGGER_SOFTMAX_KEY } from '../model/reposhapleyKeys.js';
import { CHUNK_CLOSE_TOKENS, CHUNK_OPEN_TOKENS, CONTROL_TOKENS, NEED } from '../model/specialTokens.js';
import { silentLogger } from '../util/logger.js';
import { cachedDerivedModel } from './cacheDir.js';
import type { CatalogEntry } from './catalog.js';
import { controlPatch, deriveControlModel } from './controlDerive.js';
import { CONTROL_PACK_FORMAT, controlPackManifest, encodeRows, loadControlPack, sha256, type ControlPack } from './controlPack.js';
import { pullModel } from './pull.js';

const WIDTH = 64;
const TOKEN_TEXTS = [...CONTROL_TOKENS, ...CHUNK_OPEN_TOKENS.flatMap((open, i) => [open, CHUNK_CLOSE_TOKENS[i]!])];

let dir: string;
let tiny: TinyModel;
let baseBytes: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'control-pack-'));
  // A FIM model without control tokens, with the converter's padding rows, as Qwen2.5-Coder is.
  tiny = await writeTinyModel({
    path: path.join(dir, 'base.gguf'), fimLayout: 'starcoder', controlTokens: false, paddingRows: 30, weightType: GgmlType.Q8_0,
  });
  baseBytes = readFileSync(tiny.path);
});

const firstPad = () => tiny.tokens.findIndex((t) => t.startsWith('[PAD'));

/**
 * A pack whose NEED rows copy those of `def`: reading <NEED> must act as reading `def`, and
 * <NEED> must be exactly as likely as `def` next (Q8_0 re-encodes a decoded row to the same bytes).
 */
function writePack(
  packsDir: string, overrides: Partial<ControlPack> = {}, derived = { sha256: '0'.repeat(64), sizeBytes: 0 }, needOutput?: Float32Array,
): string {
  const packDir = path.join(packsDir, 'tiny');
  mkdirSync(packDir, { recursive: true });
  const rows = TOKEN_TEXTS.map((_, i): [Float32Array, Float32Array] => [
    Float32Array.from({ length: WIDTH }, (_, k) => Math.sin(i + k)), Float32Array.from({ length: WIDTH }, (_, k) => Math.cos(i * k) * 0.01),
  ]);
  rows[0] = [rowOf('token_embd.weight', 'def'), needOutput ?? rowOf('output.weight', 'def')];
  const bytes = encodeRows(rows);
  writeFileSync(path.join(packDir, 'rows.f32'), bytes);
  const pack: ControlPack = {
    format: CONTROL_PACK_FORMAT,
    base: { model: 'tiny', sha256: sha256(baseBytes), sizeBytes: baseBytes.length },
    hidden: WIDTH,
    tokens: TOKEN_TEXTS.map((text, i) => ({ text, id: firstPad() + i })),
    rows: { file: 'rows.f32', sha256: sha256(bytes) },
    trained: true, needThreshold: 0.4, layout: 'repo-fim',
    derived: { fileName: 'tiny+control.gguf', ...derived },
    ...overrides,
  };
  writeFileSync(path.join(packDir, 'pack.json'), JSON.stringify(pack, null, 2));
  return packDir;
}

/** The row of `text` in one of the tiny model's vocabulary matrices, decoded. */
function rowOf(tensorName: string, text: string): Float32Array {
  return rowById(tensorName, tiny.id(text));
}

function rowById(tensorName: string, id: number): Float32Array {
  const header = readHeaderSync();
  const tensor = header.tensors.find((t) => t.name === tensorName)!;
  const bytes = rowBytes(tensor);
  const at = header.dataOffset + tensor.offset + id * bytes;
  return decodeTensorData(baseBytes.subarray(at, at + bytes), tensor.type as WritableGgmlType, WIDTH);
}

let headerCache: Awaited<ReturnType<typeof readGgufHeader>> | undefined;
function readHeaderSync() {
  if (headerCache?.kind !== 'ok') throw new Error('header not read');
  return headerCache.header;
}

describe('control packs', () => {
  let packsDir: string;
  let derivedPath: string;

  beforeAll(async () => {
    headerCache = await readGgufHeader(tiny.path);
    packsDir = path.join(dir, 'packs');
    const packDir = writePack(packsDir);
    derivedPath = path.join(dir, 'derived.gguf');
    const made = await deriveControlModel(tiny.path, derivedPath, loadControlPack(packDir), { pin: false });
    if (made.kind !== 'ok') throw new Error(made.message);
    writePack(packsDir, {}, { sha256: made.sha256, sizeBytes: made.sizeBytes });
  });

  test('the derived model has CONTROL tokens at the padding ids, and the pack metadata', async () => {
    const read = await readGgufHeader(derivedPath);
    if (read.kind !== 'ok') throw new Error(read.message);
    const kv = read.header.kv;
    expect(kv.get(CONTROL_TRAINED_KEY)?.value).toBe(true);
    expect(Number(kv.get(NEED_THRESHOLD_KEY)?.value)).toBeCloseTo(0.4, 6);
    expect(kv.get(LAYOUT_KEY)?.value).toBe('repo-fim');
    expect(kv.has(TRIGGER_SOFTMAX_KEY)).toBe(false); // a pack that does not say derives the bytes it always did
    const result = await loadLlamaModel({ path: derivedPath, threads: 1, gpuLayers: 0 }, silentLogger);
    if (result.kind !== 'ok') throw new Error(result.message);
    const model = result.model;
    try {
      expect(model.info.hasControlTokens).toBe(true);
      expect(model.info.triggerSoftmax).toBe('pair');
      expect(model.info.special.need).toBe(firstPad());
      // User text never becomes a control token; the token prints only as special text.
      expect(model.tokenize('x = "<NEED>"')).not.toContain(firstPad());
      expect(model.detokenize([firstPad()], true)).toBe(NEED);
      const session = await model.createSession();
      // Same output row: <NEED> and `def` are equally likely next, wherever the model is.
      const decision = await session.decide(model.tokenize('def f(x):'), firstPad(), tiny.id('def'));
      expect(decision.probabilityFirst).toBeCloseTo(0.5, 6);
      // Over the whole vocabulary each is one of many: half of the pair's mass at most.
      expect(decision.vocabularyProbabilityFirst).toBeGreaterThan(0);
      expect(decision.vocabularyProbabilityFirst).toBeCloseTo(Math.exp(decision.logitFirst), 9);
      // Same input row: reading <NEED> is reading `def`.
      const [viaNeed, viaDef] = [
        await session.logLikelihood([firstPad()], model.tokenize(' f(x):')),
        await session.logLikelihood([tiny.id('def')], model.tokenize(' f(x):')),
      ];
      expect(Math.abs(viaNeed - viaDef)).toBeLessThan(1e-4);
      await session.dispose();
    } finally {
      await model.dispose();
    }
  });

  test('a pack that reads its trigger over the vocabulary says so in the derived model', async () => {
    const packDir = writePack(path.join(dir, 'vocabulary'), { trigger: 'vocabulary' });
    const out = path.join(dir, 'vocabulary.gguf');
    const made = await deriveControlModel(tiny.path, out, loadControlPack(packDir), { pin: false });
    if (made.kind !== 'ok') throw new Error(made.message);
    const read = await readGgufHeader(out);
    if (read.kind !== 'ok') throw new Error(read.message);
    expect(read.header.kv.get(TRIGGER_SOFTMAX_KEY)?.value).toBe('vocabulary');
    const result = await loadLlamaModel({ path: out, threads: 1, gpuLayers: 0 }, silentLogger);
    if (result.kind !== 'ok') throw new Error(result.message);
    expect(result.model.info.triggerSoftmax).toBe('vocabulary');
    await result.model.dispose();
    const odd = writePack(path.join(dir, 'odd-trigger'), { trigger: 'sometimes' as never });
    expect(() => loadControlPack(odd)).toThrow(/trigger "sometimes" is neither "pair" nor "vocabulary"/);
  });

  test('generation never writes a control token, even one the rows make the most likely', async () => {
    const prompt = [tiny.id('def'), tiny.id('f')];
    const generate = async (file: string) => {
      const loaded = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 0 }, silentLogger);
      if (loaded.kind !== 'ok') throw new Error(loaded.message);
      const session = await loaded.model.createSession();
      try {
        const result = await session.generate(prompt, { maxTokens: 6, singleLine: false, repetitionStop: false });
        return { result, session, model: loaded.model };
      } catch (error) {
        await loaded.model.dispose();
        throw error;
      }
    };
    const base = await generate(tiny.path);
    await base.model.dispose();
    expect(base.result.tokens.length).toBeGreaterThan(0);
    // <NEED>'s output row: three times that of the base's first token, so after the prompt <NEED> outscores it.
    const first = base.result.tokens[0]!;
    const packDir = writePack(path.join(dir, 'loud-need'), {}, undefined, rowById('output.weight', first).map((v) => 3 * v));
    const out = path.join(dir, 'loud-need.gguf');
    const made = await deriveControlModel(tiny.path, out, loadControlPack(packDir), { pin: false });
    if (made.kind !== 'ok') throw new Error(made.message);
    const derived = await generate(out);
    try {
      const decision = await derived.session.decide(prompt, firstPad(), first);
      expect(decision.probabilityFirst).toBeGreaterThan(0.5); // unmasked, greedy decoding would stop at <NEED>
      expect(derived.result.tokens).toEqual(base.result.tokens);
    } finally {
      await derived.model.dispose();
    }
  });

  test('a pack is refused when its rows do not match its pin, or its ids are not padding', () => {
    const broken = path.join(dir, 'broken');
    const packDir = writePack(broken);
    writeFileSync(path.join(packDir, 'rows.f32'), Buffer.alloc(TOKEN_TEXTS.length * 2 * WIDTH * 4));
    expect(() => loadControlPack(packDir)).toThrow(/SHA-256 is not the one pack.json pins/);
    const withAdapter = writePack(path.join(dir, 'adapter'), { adapter: { file: 'adapter.gguf', sha256: sha256(Buffer.from('adapter')) } });
    writeFileSync(path.join(withAdapter, 'adapter.gguf'), 'adapter');
    expect(() => loadControlPack(withAdapter)).not.toThrow();
    writeFileSync(path.join(withAdapter, 'adapter.gguf'), 'another adapter');
    expect(() => loadControlPack(withAdapter)).toThrow(/adapter\.gguf: its SHA-256 is not the one pack.json pins/);
    const outside = writePack(path.join(dir, 'outside'), { adapter: { file: '../adapter.gguf', sha256: 'a'.repeat(64) } });
    expect(() => loadControlPack(outside)).toThrow(/adapter needs a file name in the pack folder/);
    const wrongIds = writePack(path.join(dir, 'wrong-ids'), { tokens: TOKEN_TEXTS.map((text, i) => ({ text, id: tiny.id('def') + i })) });
    expect(() => controlPatch(readHeaderSync(), loadControlPack(wrongIds))).toThrow(/not a padding row/);
  });

  test('pull applies the pack to the verified base once, pins the result, and the plan finds it', async () => {
    let server: RangeServer | undefined;
    try {
      server = await startRangeServer(baseBytes);
      const cacheDir = mkdtempSync(path.join(tmpdir(), 'control-pull-'));
      const entry: CatalogEntry = {
        name: 'tiny', fileName: 'tiny.gguf', sizeBytes: baseBytes.length, sha256: sha256(baseBytes), license: 'MIT',
        description: 'tiny', publishedMatch: null, sources: [{ kind: 'url', url: server.url }],
      };
      const options = { cacheDir, env: {}, pipCommands: [['/nonexistent/python3']], controlPacksDir: packsDir, stallTimeoutMs: 5_000 };
      const first = await pullModel(entry, options);
      expect(first.kind === 'error' ? `${first.code}: ${first.message}` : 'ok').toBe('ok');
      expect(first.kind === 'ok' && first.derived).toMatchObject({ path: path.join(cacheDir, 'tiny+control.gguf'), made: true });
      expect(createHash('sha256').update(readFileSync(path.join(cacheDir, 'tiny+control.gguf'))).digest('hex'))
        .toBe(JSON.parse(readFileSync(path.join(packsDir, 'tiny', 'pack.json'), 'utf8')).derived.sha256);
      const second = await pullModel(entry, options);
      expect(second.kind === 'ok' && second.derived?.made).toBe(false);
      expect(cachedDerivedModel('tiny', cacheDir, (name) => controlPackManifest(name, packsDir))).toMatchObject({ verified: true, trained: true });
      expect(readdirSync(cacheDir).sort()).toEqual(['tiny+control.gguf', 'tiny+control.gguf.sha256.json', 'tiny.gguf', 'tiny.gguf.sha256.json']);

      // A pin that no longer matches: the derived file is deleted and the error says why.
      const stale = path.join(dir, 'stale');
      writePack(stale, {}, { sha256: 'f'.repeat(64), sizeBytes: 1 });
      const mismatch = await pullModel(entry, { ...options, cacheDir: mkdtempSync(path.join(tmpdir(), 'control-pull-')), controlPacksDir: stale });
      expect(mismatch).toMatchObject({ kind: 'error', code: 'control-pack' });
      expect(mismatch.kind === 'error' && mismatch.message).toMatch(/the pack pins f{64}; deleted it.*the base model .* is fine/);
    } finally {
      server?.close();
    }
  });
});

describe('a pack that stores the matrices as Q8_0', () => {
  test('the derived model multiplies by Q8_0 matrices holding the Q5_0 values, and computes what the Q5_0 one does', async () => {
    headerCache ??= await readGgufHeader(tiny.path);
    const q5 = await writeTinyModel({
      path: path.join(dir, 'base-q5.gguf'), fimLayout: 'starcoder', controlTokens: false, paddingRows: 30, weightType: GgmlType.Q5_0,
    });
    const derive = async (name: string, overrides: Partial<ControlPack>) => {
      const out = path.join(dir, `${name}.gguf`);
      const made = await deriveControlModel(q5.path, out, loadControlPack(writePack(path.join(dir, name), overrides)), { pin: false });
      if (made.kind !== 'ok') throw new Error(made.message);
      const read = await readGgufHeader(out);
      if (read.kind !== 'ok') throw new Error(read.message);
      return { out, tensors: read.header.tensors };
    };
    const [asIs, widened] = [await derive('q5-as-is', {}), await derive('q5-widened', { matmulWeights: 'q8_0' })];
    expect(asIs.tensors.filter((t) => t.type === GgmlType.Q8_0)).toEqual([]);
    for (const tensor of widened.tensors) {
      const before = asIs.tensors.find((t) => t.name === tensor.name)!.type;
      const expected = before === GgmlType.Q5_0 && tensor.name !== 'token_embd.weight' ? GgmlType.Q8_0 : before;
      expect([tensor.name, tensor.type]).toEqual([tensor.name, expected]);
    }
    expect(widened.tensors.filter((t) => t.type === GgmlType.Q8_0).length).toBeGreaterThan(5);

    const likelihood = async (file: string) => {
      const loaded = await loadLlamaModel({ path: file, threads: 1, gpuLayers: 0 }, silentLogger);
      if (loaded.kind !== 'ok') throw new Error(loaded.message);
      try {
        const session = await loaded.model.createSession();
        return await session.logLikelihood(loaded.model.tokenize('def f(x):'), loaded.model.tokenize('\n    return x'));
      } finally {
        await loaded.model.dispose();
      }
    };
    // The same values in both files: only llama.cpp's summation order may differ.
    expect(Math.abs((await likelihood(asIs.out)) - (await likelihood(widened.out)))).toBeLessThan(1e-3);
    expect(() => loadControlPack(writePack(path.join(dir, 'odd-weights'), { matmulWeights: 'q4_0' as never }))).toThrow(/matmulWeights "q4_0" is not "q8_0"/);
  });
});

afterAll(() => {
  // temp folders are left to the OS; the files are small
});
