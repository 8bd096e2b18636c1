/**
 * A control pack: what it takes to turn a verified pretrained model into one that emits
 * RepoShapley's control tokens (issue 20), small enough to commit. `model pull` applies it to
 * the base file (controlDerive.ts); the 400 MB result never enters the repository.
 *
 *   models/control/<catalog name>/pack.json   the token table, the base's and the result's hashes,
 *                                              t_c, the layout, whether the rows are trained
 *   models/control/<catalog name>/rows.f32     for each token, in table order: its input row
 *                                              (token_embd), then its output row (output.weight);
 *                                              little-endian float32, `hidden` values per row
 *
 * The tokens take ids of the base's padding rows (`[PAD151665]`…): ids its tokenizer never
 * produces from text. They become CONTROL tokens, so user text cannot produce them either.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../util/packageRoot.js';
import type { TriggerSoftmax } from '../model/reposhapleyKeys.js';
import type { LayoutName } from '../prompt/layouts.js';

export const CONTROL_PACK_FORMAT = 'reposhapley-control-pack/1';

/** One control token: its text and the id it takes in the base vocabulary. */
export interface ControlToken {
  text: string;
  id: number;
}

export interface ControlPack {
  format: typeof CONTROL_PACK_FORMAT;
  /** The catalog entry the pack applies to, and the exact file. */
  base: { model: string; sha256: string; sizeBytes: number };
  /** Width of a row (the model's n_embd). */
  hidden: number;
  tokens: ControlToken[];
  rows: { file: string; sha256: string };
  /** False until distillation has trained the rows; `auto` never picks reposhapley before. */
  trained: boolean;
  /** t_c, tuned on the validation packages. */
  needThreshold: number;
  /** The generation layout the control decisions were trained with (prompt/layouts.ts). */
  layout: LayoutName;
  /** How the trigger's P(NEED) is read, the rows trained for it (model/reposhapleyKeys.ts); absent: `pair`. */
  trigger?: TriggerSoftmax;
  /**
   * `q8_0`: the derived model stores the base's Q5_0 matrices (all but the token embedding, which
   * is only looked up) as Q8_0 with the same values, which llama.cpp multiplies faster
   * (docs/history/2026-12-04-bench-q8-shifted-reuse.md, "Q8_0 matrices"). Absent: every matrix as in the base.
   */
  matmulWeights?: 'q8_0';
  /** The file the pack makes from the base, pinned like a catalog file. */
  derived: { fileName: string; sha256: string; sizeBytes: number };
  /**
   * A llama.cpp LoRA adapter GGUF in the pack folder (the fine-tune's, models/train/control_finetune.py),
   * applied to the derived model on every load unless the adapterPath setting names another.
   */
  adapter?: { file: string; sha256: string };
  /** Free-form provenance: labels, training run, metrics (docs only; nothing reads it). */
  provenance?: Record<string, unknown>;
}

/** A pack with its rows read and checked. */
export interface LoadedControlPack {
  dir: string;
  pack: ControlPack;
  /** rows[i] = [input row, output row] of tokens[i]. */
  rows: [Float32Array, Float32Array][];
}

/** Where the packs live (next to the bundled model, so a packaged server carries them). */
export function controlPacksDir(): string {
  return path.join(packageRoot(), 'models', 'control');
}

/** The pack for catalog model `name`, if the repository has one. Throws when one exists but is broken. */
export function findControlPack(name: string, dir = controlPacksDir()): LoadedControlPack | undefined {
  const packDir = path.join(dir, name);
  if (!existsSync(path.join(packDir, 'pack.json'))) return undefined;
  return loadControlPack(packDir);
}

/**
 * Only `pack.json` of catalog model `name` (no rows read, nothing hashed): what choosing a model
 * needs. Undefined when there is no pack, or a broken one (`model pull` reports that).
 */
export function controlPackManifest(name: string, dir = controlPacksDir()): ControlPack | undefined {
  const packDir = path.join(dir, name);
  if (!existsSync(path.join(packDir, 'pack.json'))) return undefined;
  try {
    return readManifest(packDir);
  } catch {
    return undefined;
  }
}

/** pack.json, checked; an Error naming the file and the problem otherwise. */
function readManifest(packDir: string): ControlPack {
  const file = path.join(packDir, 'pack.json');
  const pack = JSON.parse(readFileSync(file, 'utf8')) as ControlPack;
  const problem = packProblem(pack);
  if (problem) throw new Error(`${file}: ${problem}`);
  return pack;
}

/** Reads and checks a pack folder; every problem is an Error naming the file and what is wrong. */
export function loadControlPack(packDir: string): LoadedControlPack {
  const pack = readManifest(packDir);
  const bytes = readFileSync(path.join(packDir, pack.rows.file));
  const expected = pack.tokens.length * 2 * pack.hidden * 4;
  if (bytes.length !== expected) throw new Error(`${pack.rows.file}: ${bytes.length} bytes, the table needs ${expected}`);
  if (sha256(bytes) !== pack.rows.sha256) throw new Error(`${pack.rows.file}: its SHA-256 is not the one pack.json pins; the pack is damaged or half-updated`);
  if (pack.adapter && sha256(readFileSync(path.join(packDir, pack.adapter.file))) !== pack.adapter.sha256) {
    throw new Error(`${pack.adapter.file}: its SHA-256 is not the one pack.json pins; the pack is damaged or half-updated`);
  }
  return { dir: packDir, pack, rows: splitRows(bytes, pack.tokens.length, pack.hidden) };
}

function packProblem(pack: ControlPack): string | undefined {
  if (pack.format !== CONTROL_PACK_FORMAT) return `format ${JSON.stringify(pack.format)}, expected ${CONTROL_PACK_FORMAT}`;
  if (!Number.isInteger(pack.hidden) || pack.hidden <= 0 || pack.hidden % 32 !== 0) return `hidden ${pack.hidden} is not a positive multiple of 32`;
  if (!Array.isArray(pack.tokens) || pack.tokens.length === 0) return 'no tokens';
  const ids = new Set(pack.tokens.map((t) => t.id));
  const texts = new Set(pack.tokens.map((t) => t.text));
  if (ids.size !== pack.tokens.length || texts.size !== pack.tokens.length) return 'token ids and texts must be unique';
  if (pack.tokens.some((t) => !Number.isInteger(t.id) || t.id < 0 || !t.text)) return 'every token needs a text and a non-negative id';
  if (!(pack.needThreshold >= 0 && pack.needThreshold <= 1)) return `needThreshold ${pack.needThreshold} is not in [0, 1]`;
  if (pack.trigger !== undefined && pack.trigger !== 'pair' && pack.trigger !== 'vocabulary') return `trigger ${JSON.stringify(pack.trigger)} is neither "pair" nor "vocabulary"`;
  if (pack.matmulWeights !== undefined && pack.matmulWeights !== 'q8_0') return `matmulWeights ${JSON.stringify(pack.matmulWeights)} is not "q8_0"`;
  if (pack.adapter !== undefined && !(typeof pack.adapter.file === 'string' && path.basename(pack.adapter.file) === pack.adapter.file && /^[0-9a-f]{64}$/.test(pack.adapter.sha256))) {
    return 'adapter needs a file name in the pack folder and its SHA-256';
  }
  return undefined;
}

function splitRows(bytes: Buffer, count: number, hidden: number): [Float32Array, Float32Array][] {
  const all = new Float32Array(count * 2 * hidden);
  for (let i = 0; i < all.length; i++) all[i] = bytes.readFloatLE(i * 4);
  return Array.from({ length: count }, (_, t) => [
    all.slice((2 * t) * hidden, (2 * t + 1) * hidden), all.slice((2 * t + 1) * hidden, (2 * t + 2) * hidden),
  ]);
}

/** The rows file's bytes for `rows` (the inverse of loading). */
export function encodeRows(rows: readonly (readonly [Float32Array, Float32Array])[]): Buffer {
  const hidden = rows[0]?.[0].length ?? 0;
  const out = Buffer.alloc(rows.length * 2 * hidden * 4);
  rows.forEach(([input, output], t) => {
    input.forEach((v, i) => out.writeFloatLE(v, ((2 * t) * hidden + i) * 4));
    output.forEach((v, i) => out.writeFloatLE(v, ((2 * t + 1) * hidden + i) * 4));
  });
  return out;
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
