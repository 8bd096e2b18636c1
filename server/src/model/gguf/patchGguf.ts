/**
 * Derives a GGUF from another: the same tensors, with some metadata replaced and some tensor
 * rows rewritten. This is how a pretrained model gains trained rows (RepoShapley's control
 * tokens in Qwen2.5-Coder's padding rows) without anyone shipping the 400 MB result: the base
 * file is verified, then patched locally.
 *
 * The data section is copied byte for byte, so every tensor the patch does not name is
 * bit-identical to the base. Changing the metadata changes the header's length; tensor offsets
 * are relative to the data section, which starts at the next alignment boundary, so they stay.
 * A patch may also widen Q5_0 matrices to Q8_0 (the same values, read faster); then the tensors
 * are laid out anew, one after another, and each is copied or widened on its own.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { GGML_BLOCK_LAYOUT, GgmlType, encodeTensorData, q5_0ToQ8_0, type GgufValue, type WritableGgmlType } from './ggufTypes.js';
import { readGgufHeader, tensorDataBytes, type GgufTensorInfo } from './ggufReader.js';
import { encodeHeader } from './ggufWriter.js';

/** Replacement values for one row (the innermost dimension, ne[0] values) of a 2-D tensor. */
export interface RowPatch {
  tensor: string;
  row: number;
  values: Float32Array;
}

export interface GgufPatch {
  /** Metadata to add or replace (the rest is kept as it is, in its order). */
  kv: ReadonlyMap<string, GgufValue>;
  rows: readonly RowPatch[];
  /** Q5_0 matrices to store as Q8_0 holding the same values ({@link q5_0ToQ8_0}). */
  widenToQ8_0?: ReadonlySet<string>;
}

/** Row types a patch can encode (the writer's; Q4_K and friends would need their own quantizers). */
const PATCHABLE_TYPES = new Set<GgmlType>([GgmlType.F32, GgmlType.F16, GgmlType.Q8_0, GgmlType.Q5_0]);

const COPY_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Write `outPath` as `basePath` with `patch` applied, through a partial file of this call's own and
 * a rename: writers of the same file at once (two labeler shards widening one model) each rename a
 * whole copy, and none writes into another's.
 * Throws with a message naming the problem (unknown tensor, unsupported row type, bad row).
 */
export async function patchGguf(basePath: string, outPath: string, patch: GgufPatch): Promise<void> {
  const read = await readGgufHeader(basePath);
  if (read.kind !== 'ok') throw new Error(read.message);
  const base = read.header;
  const widen = patch.widenToQ8_0 ?? new Set<string>();
  const tensors = widen.size === 0 ? base.tensors : widenedLayout(base.tensors, widen, base.alignment);
  const rowWrites = patch.rows.map((row) => encodeRowPatch(tensors, row));
  const kv = new Map(base.kv);
  for (const [key, value] of patch.kv) kv.set(key, value);
  const header = encodeHeader(kv, tensors);
  const dataOffset = Math.ceil(header.length / base.alignment) * base.alignment;

  const partial = `${outPath}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
  const input = await open(basePath, 'r');
  const output = await open(partial, 'w');
  try {
    await writeAll(output, Buffer.concat([header, Buffer.alloc(dataOffset - header.length)]), 0);
    if (widen.size === 0) {
      await copyRange(input, output, base.dataOffset, base.fileSize, dataOffset);
    } else {
      await copyTensors(input, output, { from: base.tensors, to: tensors, fromData: base.dataOffset, toData: dataOffset });
    }
    for (const write of rowWrites) await writeAll(output, write.bytes, dataOffset + write.offset);
    await output.sync();
  } catch (error) {
    await output.close().catch(() => undefined);
    await input.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
  await output.close();
  await input.close();
  await rename(partial, outPath);
}

/** The tensor table with `widen` stored as Q8_0, every tensor at the next aligned offset. */
function widenedLayout(tensors: readonly GgufTensorInfo[], widen: ReadonlySet<string>, alignment: number): GgufTensorInfo[] {
  for (const name of widen) {
    const tensor = tensors.find((t) => t.name === name);
    if (!tensor) throw new Error(`patch widens tensor ${name}, which the base model does not have`);
    if (tensor.type !== GgmlType.Q5_0) throw new Error(`patch widens tensor ${name}, stored as ${GgmlType[tensor.type] ?? tensor.type}; only Q5_0 widens to Q8_0`);
  }
  let offset = 0;
  return tensors.map((tensor) => {
    const laid = { ...tensor, type: widen.has(tensor.name) ? GgmlType.Q8_0 : tensor.type, offset: Math.ceil(offset / alignment) * alignment };
    offset = laid.offset + sizeOf(laid);
    return laid;
  });
}

/** Each tensor's bytes from the base's data section to its place in the new one, widened where its type changed. */
async function copyTensors(
  input: FileHandle, output: FileHandle,
  layout: { from: readonly GgufTensorInfo[]; to: readonly GgufTensorInfo[]; fromData: number; toData: number },
): Promise<void> {
  for (const [i, source] of layout.from.entries()) {
    const target = layout.to[i]!;
    const start = layout.fromData + source.offset;
    if (target.type === source.type) {
      await copyRange(input, output, start, start + sizeOf(source), layout.toData + target.offset);
      continue;
    }
    const bytes = Buffer.alloc(sizeOf(source));
    const { bytesRead } = await input.read(bytes, 0, bytes.length, start);
    if (bytesRead !== bytes.length) throw new Error('the base model ended while it was being copied');
    await writeAll(output, q5_0ToQ8_0(bytes), layout.toData + target.offset);
  }
}

function sizeOf(tensor: GgufTensorInfo): number {
  const size = tensorDataBytes(tensor);
  if (size === undefined) throw new Error(`cannot size tensor ${tensor.name} of type ${tensor.type}`);
  return size;
}

/** The encoded bytes of one row patch and where they go in the data section. */
function encodeRowPatch(tensors: readonly GgufTensorInfo[], patch: RowPatch): { offset: number; bytes: Buffer } {
  const tensor = tensors.find((t) => t.name === patch.tensor);
  if (!tensor) throw new Error(`patch names tensor ${patch.tensor}, which the base model does not have`);
  const [width, rows] = [tensor.ne[0]!, tensor.ne[1] ?? 1];
  if (tensor.ne.length !== 2) throw new Error(`tensor ${tensor.name} is not 2-D; only rows of matrices can be patched`);
  if (!PATCHABLE_TYPES.has(tensor.type)) {
    throw new Error(`tensor ${tensor.name} is stored as ${GgmlType[tensor.type] ?? tensor.type}; rows can be patched in F32, F16, Q8_0 or Q5_0 only`);
  }
  if (!Number.isInteger(patch.row) || patch.row < 0 || patch.row >= rows) {
    throw new RangeError(`row ${patch.row} is outside tensor ${tensor.name} (${rows} rows)`);
  }
  if (patch.values.length !== width) throw new RangeError(`a row of ${tensor.name} has ${width} values, the patch gives ${patch.values.length}`);
  return { offset: tensor.offset + patch.row * rowBytes(tensor), bytes: encodeTensorData(patch.values, tensor.type as WritableGgmlType) };
}

/** Bytes of one row (ne[0] values) of a tensor whose block layout is known. */
export function rowBytes(tensor: GgufTensorInfo): number {
  const layout = GGML_BLOCK_LAYOUT[tensor.type];
  if (!layout) throw new Error(`cannot size rows of tensor type ${tensor.type}`);
  return (tensor.ne[0]! / layout.blockSize) * layout.blockBytes;
}

async function copyRange(
  input: FileHandle, output: FileHandle,
  start: number, end: number, outStart: number,
): Promise<void> {
  const buffer = Buffer.alloc(COPY_CHUNK_BYTES);
  for (let position = start; position < end;) {
    const { bytesRead } = await input.read(buffer, 0, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) throw new Error('the base model ended while it was being copied');
    await writeAll(output, buffer.subarray(0, bytesRead), outStart + (position - start));
    position += bytesRead;
  }
}

async function writeAll(file: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    const { bytesWritten } = await file.write(bytes, written, bytes.length - written, position + written);
    written += bytesWritten;
  }
}
