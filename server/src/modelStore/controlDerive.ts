/**
 * Applies a control pack (controlPack.ts) to its verified base model: the control tokens take
 * their padding rows as CONTROL tokens with the pack's input and output rows, and the GGUF
 * records t_c, whether the rows are trained, and the layout. The result is hashed and must match
 * the pack's pin, like any catalog file.
 */
import { rm, stat } from 'node:fs/promises';
import { kvArray, readGgufHeader, type GgufHeader } from '../model/gguf/ggufReader.js';
import { GgufValueType, LlamaTokenType, type GgufValue } from '../model/gguf/ggufTypes.js';
import { patchGguf, type GgufPatch } from '../model/gguf/patchGguf.js';
import { CONTROL_PACK_KEY, CONTROL_TRAINED_KEY, LAYOUT_KEY, NEED_THRESHOLD_KEY, TRIGGER_SOFTMAX_KEY } from '../model/reposhapleyKeys.js';
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
  const sha256 = await sha256File(outPath);
  const { derived } = loaded.pack;
  if (options.pin !== false && sha256 !== derived.sha256) {
    await rm(outPath, { force: true });
    return {
      kind: 'error',
      message: `the model derived with ${loaded.dir} hashes to ${sha256}, the pack pins ${derived.sha256}; deleted it. ` +
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
