/**
 * The project's own GGUF v3 writer. The model export pipeline (Python trainer dumps tensors,
 * TypeScript writes GGUF) and the test fixtures use it.
 *
 * Layout: magic, version, tensor count, KV count, KV pairs, tensor infos, padding to the
 * alignment, then each tensor's data padded to the alignment. Tensor data is encoded and
 * written one tensor at a time, so a lazily supplied tensor is in memory only while written.
 */
import { open, rename, rm } from 'node:fs/promises';
import {
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GGUF_VERSION,
  GgmlType,
  GgufValueType,
  Q8_0_BLOCK_SIZE,
  encodeTensorData,
  tensorByteSize,
  type GgufScalar,
  type GgufValue,
  type WritableGgmlType,
} from './ggufTypes.js';

/** Tensor values, or a function that produces them when the tensor is written. */
export type TensorSource = Float32Array | (() => Float32Array | Promise<Float32Array>);

type ScalarType = Exclude<GgufValueType, GgufValueType.ARRAY>;

interface PendingTensor {
  name: string;
  /** ggml order: ne[0] is the innermost (contiguous) dimension. */
  ne: number[];
  type: WritableGgmlType;
  source: TensorSource;
  offset: number;
  byteSize: number;
}

/** Builds a GGUF file in memory (metadata and tensor references) and streams it to disk. */
export class GgufWriter {
  private readonly kv = new Map<string, GgufValue>();
  private readonly tensors: PendingTensor[] = [];
  private readonly tensorNames = new Set<string>();

  /**
   * Add a metadata pair. Without `type`: strings are STRING, booleans BOOL, bigints INT64,
   * non-negative integers UINT32, negative integers INT32, other numbers FLOAT32.
   * llama.cpp checks key types strictly, so pass `type` whenever the inference is not
   * what the key needs (e.g. FLOAT32 for `llama.rope.freq_base = 10000`).
   * For arrays, `type` is the element type; typed arrays imply it.
   */
  addKv(key: string, value: GgufScalar | readonly GgufScalar[] | ArrayLike<number>, type?: GgufValueType): this {
    if (this.kv.has(key)) throw new Error(`duplicate GGUF key: ${key}`);
    this.kv.set(key, toGgufValue(value, type));
    return this;
  }

  /** Whether a key was added. */
  hasKv(key: string): boolean {
    return this.kv.has(key);
  }

  /**
   * Add a tensor. `ne` is in ggml order, innermost dimension first: a PyTorch weight of
   * shape [rows, cols] is `[cols, rows]`. Q8_0 needs ne[0] to be a multiple of 32.
   */
  addTensor(name: string, ne: readonly number[], source: TensorSource, type: WritableGgmlType = GgmlType.F32): this {
    if (this.tensorNames.has(name)) throw new Error(`duplicate tensor: ${name}`);
    if (ne.length < 1 || ne.length > 4 || ne.some((n) => !Number.isInteger(n) || n < 1)) {
      throw new RangeError(`tensor ${name}: bad dimensions [${ne.join(', ')}]`);
    }
    if ((type === GgmlType.Q8_0 || type === GgmlType.Q5_0) && ne[0] % Q8_0_BLOCK_SIZE !== 0) {
      throw new RangeError(`tensor ${name}: ${GgmlType[type]} needs ne[0] divisible by ${Q8_0_BLOCK_SIZE}, got ${ne[0]}`);
    }
    const count = ne.reduce((a, b) => a * b, 1);
    if (source instanceof Float32Array && source.length !== count) {
      throw new RangeError(`tensor ${name}: ${source.length} values for dimensions [${ne.join(', ')}]`);
    }
    this.tensorNames.add(name);
    this.tensors.push({ name, ne: [...ne], type, source, offset: 0, byteSize: tensorByteSize(type, count) });
    return this;
  }

  /** Data alignment: `general.alignment` if added (UINT32), else 32. */
  get alignment(): number {
    const entry = this.kv.get('general.alignment');
    return entry && entry.type !== GgufValueType.ARRAY ? Number(entry.value) : GGUF_DEFAULT_ALIGNMENT;
  }

  /**
   * Write the file. It is written to `<path>.partial` and renamed, so readers never see a
   * half-written model. Returns the number of bytes written.
   */
  async write(path: string): Promise<number> {
    const alignment = this.alignment;
    let offset = 0;
    for (const tensor of this.tensors) {
      tensor.offset = offset;
      offset = alignUp(offset + tensor.byteSize, alignment);
    }
    const header = encodeHeader(this.kv, this.tensors);
    const partial = `${path}.partial`;
    const file = await open(partial, 'w');
    try {
      let position = await writeAll(file, header, 0);
      position = await writeAll(file, Buffer.alloc(alignUp(position, alignment) - position), position);
      const dataStart = position;
      for (const tensor of this.tensors) {
        position = await writeAll(file, await encodeTensor(tensor), dataStart + tensor.offset);
        position = await writeAll(file, Buffer.alloc(alignUp(position - dataStart, alignment) - (position - dataStart)), position);
      }
      await file.close();
      await rename(partial, path);
      return position;
    } catch (error) {
      await file.close().catch(() => undefined);
      await rm(partial, { force: true });
      throw error;
    }
  }
}

async function encodeTensor(tensor: PendingTensor): Promise<Buffer> {
  const data = typeof tensor.source === 'function' ? await tensor.source() : tensor.source;
  const count = tensor.ne.reduce((a, b) => a * b, 1);
  if (data.length !== count) {
    throw new RangeError(`tensor ${tensor.name}: source gave ${data.length} values, expected ${count}`);
  }
  return encodeTensorData(data, tensor.type);
}

async function writeAll(file: import('node:fs/promises').FileHandle, bytes: Buffer, position: number): Promise<number> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await file.write(bytes, written, bytes.length - written, position + written);
    written += bytesWritten;
  }
  return position + bytes.length;
}

function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}

function toGgufValue(value: GgufScalar | readonly GgufScalar[] | ArrayLike<number>, type?: GgufValueType): GgufValue {
  if (typeof value === 'object') {
    const values = Array.from(value as ArrayLike<GgufScalar>);
    const elementType = type ?? typedArrayElementType(value) ?? inferScalarType(values[0] ?? 0);
    if (elementType === GgufValueType.ARRAY) throw new Error('nested GGUF arrays are not supported');
    values.forEach((v) => checkScalar(v, elementType));
    return { type: GgufValueType.ARRAY, elementType, value: values };
  }
  const scalarType = type ?? inferScalarType(value);
  if (scalarType === GgufValueType.ARRAY) throw new Error('an ARRAY type needs an array value');
  checkScalar(value, scalarType);
  return { type: scalarType, value };
}

function typedArrayElementType(value: object): ScalarType | undefined {
  if (value instanceof Uint8Array) return GgufValueType.UINT8;
  if (value instanceof Int8Array) return GgufValueType.INT8;
  if (value instanceof Uint16Array) return GgufValueType.UINT16;
  if (value instanceof Int16Array) return GgufValueType.INT16;
  if (value instanceof Uint32Array) return GgufValueType.UINT32;
  if (value instanceof Int32Array) return GgufValueType.INT32;
  if (value instanceof Float32Array) return GgufValueType.FLOAT32;
  if (value instanceof Float64Array) return GgufValueType.FLOAT64;
  return undefined;
}

function inferScalarType(value: GgufScalar): ScalarType {
  if (typeof value === 'string') return GgufValueType.STRING;
  if (typeof value === 'boolean') return GgufValueType.BOOL;
  if (typeof value === 'bigint') return GgufValueType.INT64;
  if (Number.isInteger(value)) return value >= 0 ? GgufValueType.UINT32 : GgufValueType.INT32;
  return GgufValueType.FLOAT32;
}

const INTEGER_RANGES: Partial<Record<ScalarType, [bigint, bigint]>> = {
  [GgufValueType.UINT8]: [0n, 0xffn],
  [GgufValueType.INT8]: [-0x80n, 0x7fn],
  [GgufValueType.UINT16]: [0n, 0xffffn],
  [GgufValueType.INT16]: [-0x8000n, 0x7fffn],
  [GgufValueType.UINT32]: [0n, 0xffffffffn],
  [GgufValueType.INT32]: [-0x80000000n, 0x7fffffffn],
  [GgufValueType.UINT64]: [0n, 0xffffffffffffffffn],
  [GgufValueType.INT64]: [-0x8000000000000000n, 0x7fffffffffffffffn],
};

/** Reject values the type cannot hold, so a bad key fails here rather than inside llama.cpp. */
function checkScalar(value: GgufScalar, type: ScalarType): void {
  const expected =
    type === GgufValueType.STRING ? 'string' : type === GgufValueType.BOOL ? 'boolean' : 'number';
  const actual = typeof value === 'bigint' ? 'number' : typeof value;
  if (actual !== expected) throw new TypeError(`GGUF ${GgufValueType[type]} value expected, got ${typeof value}`);
  const range = INTEGER_RANGES[type];
  if (!range) return;
  if (typeof value === 'number' && !Number.isInteger(value)) throw new TypeError(`GGUF ${GgufValueType[type]} needs an integer, got ${value}`);
  const big = BigInt(value as number | bigint);
  if (big < range[0] || big > range[1]) throw new RangeError(`${value} does not fit GGUF ${GgufValueType[type]}`);
}

/** What the header says of a tensor; offsets are relative to the data section. */
export interface TensorHeaderEntry {
  name: string;
  ne: readonly number[];
  type: number;
  offset: number;
}

/**
 * Serializes everything before the tensor data (no trailing alignment padding). Exported for
 * rewriting an existing file's metadata over its unchanged tensor data (gguf/patchGguf.ts).
 */
export function encodeHeader(kv: ReadonlyMap<string, GgufValue>, tensors: readonly TensorHeaderEntry[]): Buffer {
  const out = new ByteSink();
  out.raw(Buffer.from(GGUF_MAGIC, 'latin1'));
  out.u32(GGUF_VERSION);
  out.u64(BigInt(tensors.length));
  out.u64(BigInt(kv.size));
  for (const [key, value] of kv) {
    out.string(key);
    out.u32(value.type);
    if (value.type === GgufValueType.ARRAY) {
      out.u32(value.elementType);
      out.u64(BigInt(value.value.length));
      for (const element of value.value) out.scalar(element, value.elementType);
    } else {
      out.scalar(value.value, value.type);
    }
  }
  for (const tensor of tensors) {
    out.string(tensor.name);
    out.u32(tensor.ne.length);
    for (const n of tensor.ne) out.u64(BigInt(n));
    out.u32(tensor.type);
    out.u64(BigInt(tensor.offset));
  }
  return out.toBuffer();
}

/** A growable little-endian byte buffer for the header. */
class ByteSink {
  private buffer = Buffer.alloc(1 << 16);
  private length = 0;

  private reserve(bytes: number): number {
    if (this.length + bytes > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    const at = this.length;
    this.length += bytes;
    return at;
  }

  raw(bytes: Buffer): void {
    const at = this.reserve(bytes.length);
    bytes.copy(this.buffer, at);
  }

  u32(value: number): void {
    this.fixed(4, (b, at) => b.writeUInt32LE(value, at));
  }

  u64(value: bigint): void {
    this.fixed(8, (b, at) => b.writeBigUInt64LE(value, at));
  }

  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(BigInt(bytes.length));
    this.raw(bytes);
  }

  scalar(value: GgufScalar, type: ScalarType): void {
    switch (type) {
      case GgufValueType.UINT8: return this.fixed(1, (b, at) => b.writeUInt8(Number(value), at));
      case GgufValueType.INT8: return this.fixed(1, (b, at) => b.writeInt8(Number(value), at));
      case GgufValueType.UINT16: return this.fixed(2, (b, at) => b.writeUInt16LE(Number(value), at));
      case GgufValueType.INT16: return this.fixed(2, (b, at) => b.writeInt16LE(Number(value), at));
      case GgufValueType.UINT32: return this.fixed(4, (b, at) => b.writeUInt32LE(Number(value), at));
      case GgufValueType.INT32: return this.fixed(4, (b, at) => b.writeInt32LE(Number(value), at));
      case GgufValueType.FLOAT32: return this.fixed(4, (b, at) => b.writeFloatLE(Number(value), at));
      case GgufValueType.BOOL: return this.fixed(1, (b, at) => b.writeUInt8(value ? 1 : 0, at));
      case GgufValueType.STRING: return this.string(String(value));
      case GgufValueType.UINT64: return this.fixed(8, (b, at) => b.writeBigUInt64LE(BigInt(value as number | bigint), at));
      case GgufValueType.INT64: return this.fixed(8, (b, at) => b.writeBigInt64LE(BigInt(value as number | bigint), at));
      case GgufValueType.FLOAT64: return this.fixed(8, (b, at) => b.writeDoubleLE(Number(value), at));
    }
  }

  /** Reserve first: reserving may replace the buffer. */
  private fixed(size: number, write: (buffer: Buffer, at: number) => void): void {
    const at = this.reserve(size);
    write(this.buffer, at);
  }

  toBuffer(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
