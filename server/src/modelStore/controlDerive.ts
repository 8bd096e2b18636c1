/**
 * Applies a control pack (controlPack.ts) to its verified base model: the control tokens take
 * their padding rows as CONTROL tokens with the pack's input and output rows, and the GGUF
 * records t_c, whether the rows are trained, and the layout. The result is hashed and must match
 * the pack's pin, like any catalog file.
 */
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { kvArray, readGgufHeader, type GgufHeader } from '../model/gguf/ggufReader.js';
import { GgufValueType, LlamaTokenType, type GgufValue } from '../model/gguf/ggufTypes.js';
import { readLoraAdapter } from '../model/gguf/loraMerge.js';
import { patchGguf, type GgufPatch } from '../model/gguf/patchGguf.js';
import {
  CONTROL_PACK_KEY, CONTROL_TRAINED_KEY, LAYOUT_KEY, MERGED_ADAPTER_KEY, NEED_THRESHOLD_KEY, TRIGGER_SOFTMAX_KEY,
} from '../model/reposhapleyKeys.js';
import type { LoadedControlPack } from './controlPack.js';
import { sha256File } from './verify.js';
import { q5_0Matrices } from './widenedModel.js';

export type DeriveOutcome =
  | { kind: 'ok'; sha256: string; sizeBytes: number }
  | { kind: 'error'; message: string };

/**
 * Writes `outPath` from `basePath` and the pack, then checks it against the pack's pin.
 * `pin: false` skips the comparison (the trainer writes a new pack and pins what this returns).
 */
export async function deriveControlModel(
  basePath: string, outPath: string, loaded: LoadedControlPack, options: { pin?: boolean } = {},
): Promise<DeriveOutcome> {
  const read = await readGgufHeader(basePath);
  if (read.kind !== 'ok') return { kind: 'error', message: read.message };
  let patch: GgufPatch;
  try {
    patch = controlPatch(read.header, loaded);
    await patchGguf(basePath, outPath, patch);
  } catch (error) {
    return { kind: 'error', message: `applying the control pack ${loaded.dir}: ${(error as Error).message}` };
  }
  return checkedAgainstPin(outPath, options.pin === false ? undefined : loaded.pack.derived.sha256, `the model derived with ${loaded.dir}`);
}

/**
 * Writes `outPath` from the derived model at `derivedPath` with the pack's LoRA adapter folded
 * into its weights (gguf/loraMerge.ts), then checks it against the pack's `merged` pin
 * (`pin: false` skips that, as for the derived model).
 */
export async function mergeAdapter(
  derivedPath: string, outPath: string, loaded: LoadedControlPack, options: { pin?: boolean } = {},
): Promise<DeriveOutcome> {
  const { adapter, merged } = loaded.pack;
  if (!adapter) return { kind: 'error', message: `the control pack ${loaded.dir} has no adapter to merge` };
  try {
    const weights = await readLoraAdapter(path.join(loaded.dir, adapter.file));
    const kv = new Map<string, GgufValue>([[MERGED_ADAPTER_KEY, { type: GgufValueType.STRING, value: adapter.sha256 }]]);
    await patchGguf(derivedPath, outPath, { kv, rows: [], mergeLora: weights });
  } catch (error) {
    return { kind: 'error', message: `merging the adapter of ${loaded.dir}: ${(error as Error).message}` };
  }
  const pin = options.pin === false ? undefined : merged?.sha256;
  if (options.pin !== false && !pin) return { kind: 'error', message: `the control pack ${loaded.dir} pins no merged model` };
  return checkedAgainstPin(outPath, pin, `the model merged with ${loaded.dir}'s adapter`);
}

/** The written file's hash and size; deleted with an error when it is not `pin` (undefined: not checked). */
async function checkedAgainstPin(outPath: string, pin: string | undefined, what: string): Promise<DeriveOutcome> {
  const sha256 = await sha256File(outPath);
  if (pin !== undefined && sha256 !== pin) {
    await rm(outPath, { force: true });
    return {
      kind: 'error',
      message: `${what} hashes to ${sha256}, the pack pins ${pin}; deleted it. ` +
        'The pack or the patcher changed without a new pin: rebuild the pack (docs/control-tokens.md)',
    };
  }
  return { kind: 'ok', sha256, sizeBytes: (await stat(outPath)).size };
}

/** The metadata and rows the pack changes; throws when the base is not the file the pack is for. */
export function controlPatch(base: GgufHeader, loaded: LoadedControlPack): GgufPatch {
  const { pack, rows } = loaded;
  const tokens = kvArray(base, 'tokenizer.ggml.tokens') as string[] | undefined;
  const types = kvArray(base, 'tokenizer.ggml.token_type') as number[] | undefined;
  if (!tokens || !types) throw new Error('the base model has no token table');
  const width = base.tensors.find((t) => t.name === 'token_embd.weight')?.ne[0];
  if (width !== pack.hidden) throw new Error(`the pack's rows have ${pack.hidden} values, the base model's ${width ?? 'none'}`);
  if (!base.tensors.some((t) => t.name === 'output.weight')) {
    throw new Error('the base model ties its output matrix to its embeddings; a control pack needs a separate output.weight');
  }
  const newTokens = [...tokens];
  const newTypes = [...types];
  for (const token of pack.tokens) {
    if (token.id >= tokens.length) throw new Error(`token ${token.text} wants id ${token.id}, past the vocabulary's ${tokens.length}`);
    if (types[token.id] !== LlamaTokenType.UNUSED) throw new Error(`id ${token.id} is ${JSON.stringify(tokens[token.id])}, not a padding row`);
    newTokens[token.id] = token.text;
    newTypes[token.id] = LlamaTokenType.CONTROL;
  }
  const kv = new Map<string, GgufValue>([
    ['tokenizer.ggml.tokens', { type: GgufValueType.ARRAY, elementType: GgufValueType.STRING, value: newTokens }],
    ['tokenizer.ggml.token_type', { type: GgufValueType.ARRAY, elementType: GgufValueType.INT32, value: newTypes }],
    [CONTROL_TRAINED_KEY, { type: GgufValueType.BOOL, value: pack.trained }],
    [NEED_THRESHOLD_KEY, { type: GgufValueType.FLOAT32, value: pack.needThreshold }],
    [LAYOUT_KEY, { type: GgufValueType.STRING, value: pack.layout }],
    // Written only when the pack says, so a pack without the field derives the same bytes as before.
    ...(pack.trigger ? [[TRIGGER_SOFTMAX_KEY, { type: GgufValueType.STRING, value: pack.trigger }] as const] : []),
    [CONTROL_PACK_KEY, { type: GgufValueType.STRING, value: pack.rows.sha256 }],
  ]);
  const patchRows = pack.tokens.flatMap((token, i) => [
    { tensor: 'token_embd.weight', row: token.id, values: rows[i]![0] },
    { tensor: 'output.weight', row: token.id, values: rows[i]![1] },
  ]);
  return { kv, rows: patchRows, ...(pack.matmulWeights === 'q8_0' ? { widenToQ8_0: q5_0Matrices(base) } : {}) };
}
