/**
 * Reads a GGUF file's header: metadata KVs and tensor infos, not tensor data. Used to
 * validate a model before llama.cpp sees it (a clear message instead of a native error),
 * to find special-token ids, and by tests to check the writer.
 */
import { open, stat } from 'node:fs/promises';
import {
  GGML_BLOCK_LAYOUT,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_MAGIC,
  GgmlType,
  GgufValueType,
  type GgufScalar,
  type GgufValue,
} from './ggufTypes.js';

/** One tensor's description; `offset` is relative to the start of the data section. */
export interface GgufTensorInfo {
  name: string;
  /** ggml order, innermost dimension first. */
  ne: number[];
  type: GgmlType;
  offset: number;
}

/** Everything before the tensor data. */
export interface GgufHeader {
  version: number;
  kv: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  alignment: number;
  /** Absolute file offset of the tensor data section. */
  dataOffset: number;
  fileSize: number;
}

/** Outcome of reading a header; expected failures are values. */
export type ReadGgufResult =
  | { kind: 'ok'; header: GgufHeader }
  | { kind: 'missing' | 'invalid'; message: string };

/** Bigger metadata than this is treated as corrupt rather than read (vocabularies are a few MB). */
const MAX_HEADER_BYTES = 512 * 1024 * 1024;
const FIRST_READ_BYTES = 1024 * 1024;

/**
 * Read and validate the header of the GGUF file at `path`: magic, version 2 or 3, well-formed
 * KVs and tensor infos, and a file long enough for every tensor's data (catches truncation).
 */
export async function readGgufHeader(path: string): Promise<ReadGgufResult> {
  let fileSize: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return { kind: 'invalid', message: `${path} is not a file` };
    fileSize = info.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing', message: `${path} does not exist` };
    return { kind: 'invalid', message: `${path}: cannot read (${(error as Error).message})` };
  }
  try {
    return await readValidated(path, fileSize);
  } catch (error) {
    return { kind: 'invalid', message: `${path}: cannot read (${(error as Error).message})` };
  }
}

async function readValidated(path: string, fileSize: number): Promise<ReadGgufResult> {
  const file = await open(path, 'r');
  try {
    for (let want = FIRST_READ_BYTES; ; want *= 4) {
      const length = Math.min(want, fileSize, MAX_HEADER_BYTES);
      const buffer = Buffer.alloc(length);
      await file.read(buffer, 0, length, 0);
      const parsed = tryParse(buffer, fileSize, path);
      if (parsed !== NEED_MORE) return parsed;
      if (length === fileSize) return invalid(path, 'the file is truncated inside its metadata');
      if (length === MAX_HEADER_BYTES) return invalid(path, 'metadata larger than 512 MiB; the file looks corrupt');
    }
  } finally {
    await file.close();
  }
}

const NEED_MORE = Symbol('need more bytes');

function tryParse(buffer: Buffer, fileSize: number, path: string): ReadGgufResult | typeof NEED_MORE {
  try {
    const header = parseHeader(new Cursor(buffer, fileSize), fileSize);
    const problem = checkDataExtent(header);
    return problem ? invalid(path, problem) : { kind: 'ok', header };
  } catch (error) {
    if (error instanceof OutOfBytes) return NEED_MORE;
    if (error instanceof FormatError) return invalid(path, error.message);
    throw error;
  }
}

function invalid(path: string, reason: string): ReadGgufResult {
  return { kind: 'invalid', message: `${path} is not a valid GGUF model: ${reason}` };
}

class OutOfBytes extends Error {}
class FormatError extends Error {}

function parseHeader(cursor: Cursor, fileSize: number): GgufHeader {
  const magic = cursor.bytes(4).toString('latin1');
  if (magic !== GGUF_MAGIC) throw new FormatError(`bad magic ${JSON.stringify(magic)} (expected "GGUF")`);
  const version = cursor.u32();
  if (version !== 2 && version !== 3) throw new FormatError(`unsupported GGUF version ${version}`);
  const tensorCount = cursor.count('tensor count');
  const kvCount = cursor.count('metadata count');
  const kv = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = cursor.string();
    kv.set(key, readValue(cursor, cursor.u32()));
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) tensors.push(readTensorInfo(cursor));
  const alignment = readAlignment(kv);
  const dataOffset = Math.ceil(cursor.position / alignment) * alignment;
  return { version, kv, tensors, alignment, dataOffset, fileSize };
}

function readValue(cursor: Cursor, type: number): GgufValue {
  if (type === GgufValueType.ARRAY) {
    const elementType = cursor.u32();
    if (elementType === GgufValueType.ARRAY) throw new FormatError('nested arrays are not supported');
    const length = cursor.count('array length');
    const value: GgufScalar[] = new Array(length);
    for (let i = 0; i < length; i++) value[i] = readScalar(cursor, elementType);
    return { type, elementType, value };
  }
  return { type, value: readScalar(cursor, type) } as GgufValue;
}

function readScalar(cursor: Cursor, type: number): GgufScalar {
  switch (type) {
    case GgufValueType.UINT8: return cursor.take(1, (b, at) => b.readUInt8(at));
    case GgufValueType.INT8: return cursor.take(1, (b, at) => b.readInt8(at));
    case GgufValueType.UINT16: return cursor.take(2, (b, at) => b.readUInt16LE(at));
    case GgufValueType.INT16: return cursor.take(2, (b, at) => b.readInt16LE(at));
    case GgufValueType.UINT32: return cursor.u32();
    case GgufValueType.INT32: return cursor.take(4, (b, at) => b.readInt32LE(at));
    case GgufValueType.FLOAT32: return cursor.take(4, (b, at) => b.readFloatLE(at));
    case GgufValueType.BOOL: return cursor.take(1, (b, at) => b.readUInt8(at) !== 0);
    case GgufValueType.STRING: return cursor.string();
    case GgufValueType.UINT64: return toSafe(cursor.take(8, (b, at) => b.readBigUInt64LE(at)));
    case GgufValueType.INT64: return toSafe(cursor.take(8, (b, at) => b.readBigInt64LE(at)));
    case GgufValueType.FLOAT64: return cursor.take(8, (b, at) => b.readDoubleLE(at));
    default: throw new FormatError(`unknown metadata value type ${type}`);
  }
}

/** 64-bit integers become numbers when exact, else stay bigints. */
function toSafe(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function readTensorInfo(cursor: Cursor): GgufTensorInfo {
  const name = cursor.string();
  const dims = cursor.u32();
  if (dims < 1 || dims > 4) throw new FormatError(`tensor ${name} has ${dims} dimensions`);
  const ne: number[] = [];
  for (let d = 0; d < dims; d++) ne.push(cursor.count(`dimension of ${name}`));
  const type = cursor.u32() as GgmlType;
  const offset = cursor.count(`offset of ${name}`);
  return { name, ne, type, offset };
}

function readAlignment(kv: Map<string, GgufValue>): number {
  const entry = kv.get('general.alignment');
  if (!entry) return GGUF_DEFAULT_ALIGNMENT;
  const value = entry.type === GgufValueType.ARRAY ? NaN : Number(entry.value);
  if (!Number.isInteger(value) || value < 1 || (value & (value - 1)) !== 0) {
    throw new FormatError(`general.alignment ${String(value)} is not a power of two`);
  }
  return value;
}

/** A truncated download keeps a valid header but loses tensor data: check the file covers it all. */
function checkDataExtent(header: GgufHeader): string | undefined {
  let end = header.dataOffset;
  for (const tensor of header.tensors) {
    const size = tensorDataBytes(tensor);
    if (size === undefined) continue;
    end = Math.max(end, header.dataOffset + tensor.offset + size);
  }
  if (end > header.fileSize) {
    return `the file is truncated: tensor data needs ${end} bytes but the file has ${header.fileSize}`;
  }
  return undefined;
}

/** Byte size of a tensor's data, or undefined for a type this reader does not size. */
export function tensorDataBytes(tensor: GgufTensorInfo): number | undefined {
  const layout = GGML_BLOCK_LAYOUT[tensor.type];
  if (!layout) return undefined;
  const count = tensor.ne.reduce((a, b) => a * b, 1);
  return Math.ceil(count / layout.blockSize) * layout.blockBytes;
}

/** Read the raw data bytes of one tensor (tests and export tools check values with these). */
export async function readTensorBytes(path: string, header: GgufHeader, tensor: GgufTensorInfo): Promise<Buffer> {
  const size = tensorDataBytes(tensor);
  if (size === undefined) throw new Error(`cannot size tensor type ${tensor.type} of ${tensor.name}`);
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(size);
    await file.read(buffer, 0, size, header.dataOffset + tensor.offset);
    return buffer;
  } finally {
    await file.close();
  }
}

/** A metadata string, or undefined when absent or not a string. */
export function kvString(header: GgufHeader, key: string): string | undefined {
  const entry = header.kv.get(key);
  return entry && entry.type === GgufValueType.STRING ? String(entry.value) : undefined;
}

/** A metadata integer or float as a number, or undefined when absent or not numeric. */
export function kvNumber(header: GgufHeader, key: string): number | undefined {
  const entry = header.kv.get(key);
  if (!entry || entry.type === GgufValueType.ARRAY || entry.type === GgufValueType.STRING) return undefined;
  if (entry.type === GgufValueType.BOOL) return undefined;
  return Number(entry.value);
}

/** A metadata array's elements, or undefined when absent or not an array. */
export function kvArray(header: GgufHeader, key: string): GgufScalar[] | undefined {
  const entry = header.kv.get(key);
  return entry && entry.type === GgufValueType.ARRAY ? entry.value : undefined;
}

/** Reads little-endian values from a buffer; running past its end means "read more". */
class Cursor {
  position = 0;

  constructor(
    private readonly buffer: Buffer,
    private readonly fileSize: number,
  ) {}

  take<T>(size: number, read: (buffer: Buffer, at: number) => T): T {
    if (this.position + size > this.buffer.length) throw new OutOfBytes();
    const value = read(this.buffer, this.position);
    this.position += size;
    return value;
  }

  bytes(size: number): Buffer {
    return this.take(size, (b, at) => b.subarray(at, at + size));
  }

  u32(): number {
    return this.take(4, (b, at) => b.readUInt32LE(at));
  }

  /**
   * A u64 count, size or offset. Every counted thing takes at least a byte, so a value past
   * the file size means corruption (and would otherwise allocate absurd arrays).
   */
  count(what: string): number {
    const value = this.take(8, (b, at) => b.readBigUInt64LE(at));
    if (value > BigInt(this.fileSize)) throw new FormatError(`${what} ${value} is larger than the file`);
    return Number(value);
  }

  string(): string {
    return this.bytes(this.count('string length')).toString('utf8');
  }
}
