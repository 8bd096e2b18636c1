/**
 * Export parity: a random torch model (models/train/model.py) is dumped, exported to GGUF with
 * the project's writer, loaded by the real node-llama-cpp, and its next-token distributions are
 * compared with torch's fp32 logits on the same tokens. Random weights are scaled so logits
 * vary by several nats (a near-uniform model would hide a RoPE or layout error); a wrong RoPE
 * pairing gives differences near 2 nats, the correct f32 export 3e-6 with exact attention.
 *
 * Needs Debian's /usr/bin/python3 with python3-torch; without it the torch cases are skipped
 * with that message (CI installs python3-torch).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readGgufHeader, kvArray, kvNumber, kvString } from '../../server/src/model/gguf/ggufReader.js';
import { GgmlType } from '../../server/src/model/gguf/ggufTypes.js';
import { FIM_PREFIX } from '../../server/src/model/specialTokens.js';
import { exportGguf, type WeightType } from './exportGguf.js';
import { checkParity } from './parity.js';
import { writeTestTokenizer } from './testTokenizer.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PYTHON = process.env.REPOSHAPLEY_PYTHON ?? '/usr/bin/python3';
const HAS_TORCH = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
const NO_TORCH = `skipped: ${PYTHON} cannot import torch; install it with ` +
  '`apt-get install -y --no-install-recommends python3-torch libopenblas0-pthread`';

interface Case {
  name: string;
  type: WeightType;
  tied: boolean;
  kvHeads: number;
  /** F32 KV cache and no flash attention, instead of the runtime's defaults (F16 K/V). */
  exact: boolean;
  /** Max |Δ ln p| allowed; measured (see docs/training.md) well below. */
  tolerance: number;
}

const CASES: Case[] = [
  { name: 'f32 weights, exact attention: identical up to float32 rounding', type: 'f32', tied: false, kvHeads: 2, exact: true, tolerance: 1e-4 },
  { name: 'f32 weights, separate output head, GQA, runtime defaults', type: 'f32', tied: false, kvHeads: 2, exact: false, tolerance: 0.02 },
  { name: 'f16 weights, tied embeddings, runtime defaults', type: 'f16', tied: true, kvHeads: 4, exact: false, tolerance: 0.05 },
  { name: 'q8_0 weights, tied embeddings, GQA, runtime defaults', type: 'q8_0', tied: true, kvHeads: 2, exact: false, tolerance: 0.5 },
];

let dir: string;
/** The tokenizer artifact (reposhapley-tokenizer/1), as the real pipeline exports with. */
let tokenizerPath: string;
/** A GGUF with the same kind of vocabulary, for the copy-the-keys source. */
let tokenizerGgufPath: string;
let vocabularySize: number;
let tokensPath: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'reposhapley-parity-'));
  tokenizerPath = path.join(dir, 'tokenizer.json');
  vocabularySize = await writeTestTokenizer(tokenizerPath);
  tokenizerGgufPath = path.join(dir, 'tokenizer.gguf');
  expect(await writeTestTokenizer(tokenizerGgufPath)).toBe(vocabularySize);
  // Ordinary ids and the special tokens at the end of the vocabulary, 60 positions.
  const tokens = Array.from({ length: 60 }, (_, i) => (i * 7919 + 13) % vocabularySize);
  tokensPath = path.join(dir, 'tokens.json');
  await writeFile(tokensPath, JSON.stringify(tokens));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function dumpRandomModel(c: Case, prefix: string): void {
  const config = {
    vocab_size: vocabularySize, d_model: 64, n_layers: 2, n_heads: 4, n_kv_heads: c.kvHeads,
    ff_dim: 160, context_length: 256, tie_embeddings: c.tied,
  };
  const result = spawnSync(PYTHON, [
    path.join(ROOT, 'models/train/dump.py'), '--random-config', JSON.stringify(config), '--seed', '7',
    '--out', `${prefix}.tensors`, '--tokens', tokensPath, '--logits-out', `${prefix}.logits`, '--threads', '1',
  ], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`dump.py failed: ${result.stderr}`);
}

describe('GGUF export parity: torch logits vs node-llama-cpp', () => {
  test.for(CASES)('$name', async (c, ctx) => {
    ctx.skip(!HAS_TORCH, NO_TORCH);
    const prefix = path.join(dir, `${c.type}-${c.exact}`);
    dumpRandomModel(c, prefix);
    await exportGguf({ dumpPath: `${prefix}.tensors`, tokenizerPath, outPath: `${prefix}.gguf`, weightType: c.type });
    const report = await checkParity(`${prefix}.gguf`, tokensPath, `${prefix}.logits`, { threads: 2, exactAttention: c.exact });
    process.stderr.write(`parity ${c.type}${c.exact ? ' exact' : ''}: ${JSON.stringify(report)}\n`);
    expect(report.meanLogitRange).toBeGreaterThan(3); // the check is not blind
    expect(report.maxAbsLogProbDiff).toBeLessThanOrEqual(c.tolerance);
    // Near-ties may flip under rounding; a layout or RoPE error flips most positions.
    expect(report.argmaxAgreement).toBeGreaterThanOrEqual(0.9);
  });

  test('the exported GGUF carries llama hyperparameters, a GGUF source\'s tokenizer keys and llama.cpp tensor names', async (ctx) => {
    ctx.skip(!HAS_TORCH, NO_TORCH);
    const c: Case = { name: 'q8', type: 'q8_0', tied: true, kvHeads: 2, exact: false, tolerance: 0 };
    const prefix = path.join(dir, 'header');
    dumpRandomModel(c, prefix);
    await exportGguf({
      dumpPath: `${prefix}.tensors`, tokenizerPath: tokenizerGgufPath, outPath: `${prefix}.gguf`, weightType: 'q8_0', name: 'unit',
      controlTrained: true, needThreshold: 0.375, echoLines: 2,
    });
    const read = await readGgufHeader(`${prefix}.gguf`);
    if (read.kind !== 'ok') throw new Error(read.message);
    const h = read.header;
    expect(kvString(h, 'general.architecture')).toBe('llama');
    expect(kvString(h, 'general.name')).toBe('unit');
    expect([
      'llama.embedding_length', 'llama.block_count', 'llama.attention.head_count', 'llama.attention.head_count_kv',
      'llama.feed_forward_length', 'llama.rope.dimension_count', 'llama.context_length',
    ].map((k) => kvNumber(h, k))).toEqual([64, 2, 4, 2, 160, 16, 256]);
    expect(kvNumber(h, 'llama.rope.freq_base')).toBe(10000);
    expect(h.kv.get('reposhapley.control_tokens_trained')?.value).toBe(true);
    expect(kvNumber(h, 'reposhapley.need_threshold')).toBe(0.375);
    expect(kvNumber(h, 'reposhapley.echo_lines')).toBe(2);
    const tokens = kvArray(h, 'tokenizer.ggml.tokens')!;
    expect(tokens).toHaveLength(vocabularySize);
    expect(tokens[kvNumber(h, 'tokenizer.ggml.fim_pre_token_id')!]).toBe(FIM_PREFIX);
    const byName = new Map(h.tensors.map((t) => [t.name, t]));
    expect(byName.has('output.weight')).toBe(false); // tied
    expect(byName.get('token_embd.weight')).toMatchObject({ ne: [64, vocabularySize], type: GgmlType.Q8_0 });
    expect(byName.get('blk.1.attn_k.weight')).toMatchObject({ ne: [64, 32], type: GgmlType.Q8_0 });
    expect(byName.get('blk.0.ffn_down.weight')).toMatchObject({ ne: [160, 64], type: GgmlType.Q8_0 });
    expect(byName.get('blk.0.attn_norm.weight')).toMatchObject({ ne: [64], type: GgmlType.F32 });
  });

  test('a tokenizer whose vocabulary size differs from the model is refused', async (ctx) => {
    ctx.skip(!HAS_TORCH, NO_TORCH);
    const prefix = path.join(dir, 'mismatch');
    const config = { vocab_size: vocabularySize + 1, d_model: 32, n_layers: 1, n_heads: 2, ff_dim: 64, context_length: 64 };
    const result = spawnSync(PYTHON, [path.join(ROOT, 'models/train/dump.py'), '--random-config', JSON.stringify(config),
      '--out', `${prefix}.tensors`, '--threads', '1'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    await expect(exportGguf({ dumpPath: `${prefix}.tensors`, tokenizerPath, outPath: `${prefix}.gguf` }))
      .rejects.toThrow(/has \d+ tokens but the model's vocabulary is/);
  });
});
