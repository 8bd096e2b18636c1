/**
 * Hostile hyperparameters for a tiny llama-architecture model (test/support/tinyModel.ts: 4 heads,
 * width 64): values llama.cpp asserts on or misbehaves with, each with what the loader's refusal
 * must name, and a tensor shape llama.cpp refuses. Used by the loader's unit test and the stdio run
 * that switches models at run time.
 */
import { readFileSync } from 'node:fs';
import { readGgufHeader } from '../../server/src/model/gguf/ggufReader.js';
import { GgufValueType, type GgufValue } from '../../server/src/model/gguf/ggufTypes.js';
import { encodeHeader } from '../../server/src/model/gguf/ggufWriter.js';

const u32 = (value: number): GgufValue => ({ type: GgufValueType.UINT32, value });
const i32 = (value: number): GgufValue => ({ type: GgufValueType.INT32, value });
const f32 = (value: number): GgufValue => ({ type: GgufValueType.FLOAT32, value });

/** [name, the keys changed, what the message must name]; the tiny model has 4 heads, width 64. */
export const HOSTILE_HEADERS: [string, Record<string, GgufValue>, RegExp][] = [
  ['width not a multiple of heads', { 'llama.attention.head_count': u32(3), 'llama.attention.head_count_kv': u32(3) }, /embedding_length \(64\) is not a multiple of llama.attention.head_count \(3\)/],
  ['no layers', { 'llama.block_count': u32(0) }, /block_count is 0/],
  ['absurd layer count', { 'llama.block_count': u32(100_000) }, /block_count is 100000/],
  ['negative layers', { 'llama.block_count': i32(-1) }, /block_count is -1/],
  ['no heads', { 'llama.attention.head_count': u32(0) }, /head_count is 0/],
  ['no KV heads', { 'llama.attention.head_count_kv': u32(0) }, /head_count_kv is 0/],
  ['KV heads not dividing heads', { 'llama.attention.head_count_kv': u32(3) }, /not a multiple of llama.attention.head_count_kv/],
  ['heads not a multiple of KV heads', { 'llama.attention.head_count': u32(3) }, /head_count \(3\) is not a multiple/],
  ['no feed-forward width', { 'llama.feed_forward_length': u32(0) }, /feed_forward_length is 0/],
  ['no embedding width', { 'llama.embedding_length': u32(0) }, /embedding_length is 0/],
  ['width unlike the embedding rows', { 'llama.embedding_length': u32(128) }, /token_embd.weight rows have 64 values/],
  ['context 0', { 'llama.context_length': u32(0) }, /context_length is 0/],
  ['context 0xFFFFFFFF', { 'llama.context_length': u32(0xffffffff) }, /context_length is 4294967295/],
  ['fractional count', { 'llama.block_count': f32(1.5) }, /block_count is 1.5/],
  ['NaN epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(Number.NaN) }, /epsilon is NaN/],
  ['infinite epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(Number.POSITIVE_INFINITY) }, /epsilon is Infinity/],
  ['zero epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(0) }, /epsilon is 0/],
  ['negative epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(-1) }, /epsilon is -1/],
  ['huge epsilon', { 'llama.attention.layer_norm_rms_epsilon': f32(5) }, /epsilon is 5/],
  ['layer-norm epsilon NaN', { 'llama.attention.layer_norm_epsilon': f32(Number.NaN) }, /layer_norm_epsilon is NaN/],
];


/**
 * The tiny model at `modelPath` with `blk.0.ffn_gate.weight`'s dimensions swapped: the same bytes,
 * a header our checks cannot fault, a shape llama.cpp's loader refuses.
 */
export async function withTransposedTensor(modelPath: string): Promise<Buffer> {
  const read = await readGgufHeader(modelPath);
  if (read.kind !== 'ok') throw new Error(read.message);
  const base = read.header;
  const tensors = base.tensors.map((t) => (t.name === 'blk.0.ffn_gate.weight' ? { ...t, ne: [...t.ne].reverse() } : t));
  const header = encodeHeader(base.kv, tensors);
  const dataOffset = Math.ceil(header.length / base.alignment) * base.alignment;
  return Buffer.concat([header, Buffer.alloc(dataOffset - header.length), readFileSync(modelPath).subarray(base.dataOffset)]);
}
