/**
 * GGUF v3 value types and the ggml tensor encodings this project writes (F32, F16, Q8_0).
 * Format reference: ggml's docs/gguf.md; everything is little-endian.
 */

/** The 4-byte magic at offset 0 ("GGUF"). */
export const GGUF_MAGIC = 'GGUF';
export const GGUF_VERSION = 3;
/** Default data alignment when `general.alignment` is absent. */
export const GGUF_DEFAULT_ALIGNMENT = 32;

/** Type tags of metadata values. */
export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

/** A scalar metadata value; 64-bit integers are bigints when they do not fit a number. */
export type GgufScalar = number | bigint | boolean | string;

/** A metadata value as read or written: a scalar, or an array of one element type. */
export type GgufValue =
  | { type: Exclude<GgufValueType, GgufValueType.ARRAY>; value: GgufScalar }
  | { type: GgufValueType.ARRAY; elementType: Exclude<GgufValueType, GgufValueType.ARRAY>; value: GgufScalar[] };

/** ggml tensor types. Only F32, F16 and Q8_0 can be encoded here; the reader names the rest. */
export enum GgmlType {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  BF16 = 30,
}

/** llama.cpp's token types (`tokenizer.ggml.token_type`). */
export enum LlamaTokenType {
  NORMAL = 1,
  /** Inserted only by the program: text never tokenizes into it (FIM, end of text, RepoShapley's control tokens). */
  CONTROL = 3,
  USER_DEFINED = 4,
  /** A padding row the converter leaves: the tokenizer never produces it. */
  UNUSED = 5,
}

/**
 * Tensor types the writer can encode. Q5_0 is there for patching rows of a pretrained model's
 * token embedding (Qwen2.5-Coder's Q4_K_M files store `token_embd` as Q5_0).
 */
export type WritableGgmlType = GgmlType.F32 | GgmlType.F16 | GgmlType.Q8_0 | GgmlType.Q5_0;

/** Q8_0 packs 32 values per block: an f16 scale and 32 int8 quants. */
export const Q8_0_BLOCK_SIZE = 32;
const Q8_0_BLOCK_BYTES = 2 + Q8_0_BLOCK_SIZE;
/** Q5_0 packs 32 values per block: an f16 scale, 32 high bits, and 32 low nibbles. */
const Q5_0_BLOCK_BYTES = 2 + 4 + 16;

/** Bytes of `count` elements of a writable type (count must be a multiple of 32 for Q8_0). */
export function tensorByteSize(type: WritableGgmlType, count: number): number {
  switch (type) {
    case GgmlType.F32:
      return count * 4;
    case GgmlType.F16:
      return count * 2;
    case GgmlType.Q8_0:
      return (count / Q8_0_BLOCK_SIZE) * Q8_0_BLOCK_BYTES;
    case GgmlType.Q5_0:
      return (count / Q8_0_BLOCK_SIZE) * Q5_0_BLOCK_BYTES;
  }
}

/** Byte size per block and elements per block of types the reader can size, for file-size checks. */
export const GGML_BLOCK_LAYOUT: Partial<Record<GgmlType, { blockSize: number; blockBytes: number }>> = {
  [GgmlType.F32]: { blockSize: 1, blockBytes: 4 },
  [GgmlType.F16]: { blockSize: 1, blockBytes: 2 },
  [GgmlType.BF16]: { blockSize: 1, blockBytes: 2 },
  [GgmlType.Q4_0]: { blockSize: 32, blockBytes: 18 },
  [GgmlType.Q4_1]: { blockSize: 32, blockBytes: 20 },
  [GgmlType.Q5_0]: { blockSize: 32, blockBytes: 22 },
  [GgmlType.Q5_1]: { blockSize: 32, blockBytes: 24 },
  [GgmlType.Q8_0]: { blockSize: 32, blockBytes: 34 },
  [GgmlType.Q8_1]: { blockSize: 32, blockBytes: 36 },
  [GgmlType.Q2_K]: { blockSize: 256, blockBytes: 84 },
  [GgmlType.Q3_K]: { blockSize: 256, blockBytes: 110 },
  [GgmlType.Q4_K]: { blockSize: 256, blockBytes: 144 },
  [GgmlType.Q5_K]: { blockSize: 256, blockBytes: 176 },
  [GgmlType.Q6_K]: { blockSize: 256, blockBytes: 210 },
  [GgmlType.Q8_K]: { blockSize: 256, blockBytes: 292 },
};

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary32 -> binary16 bits, round to nearest even (what ggml's converters do). */
export function float32ToFloat16Bits(value: number): number {
  f32[0] = value;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // Inf or NaN
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00; // overflow -> Inf
  if (halfExponent <= 0) return sign | subnormalHalf(mantissa | 0x800000, 14 - halfExponent);
  const rounded = roundShift(mantissa, 13);
  // A mantissa carry correctly bumps the exponent (and may reach Inf).
  return sign | ((halfExponent << 10) + rounded);
}

function subnormalHalf(mantissaWithHidden: number, shift: number): number {
  if (shift > 24) return 0;
  return roundShift(mantissaWithHidden, shift);
}

/** value >> shift, rounded to nearest, ties to even. */
function roundShift(value: number, shift: number): number {
  const truncated = value >>> shift;
  const remainder = value - truncated * 2 ** shift;
  const half = 2 ** (shift - 1);
  if (remainder > half || (remainder === half && (truncated & 1) === 1)) return truncated + 1;
  return truncated;
}

/** IEEE 754 binary16 bits -> number. */
export function float16BitsToFloat32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** Encode values as a ggml tensor of `type` (little-endian). */
export function encodeTensorData(data: Float32Array, type: WritableGgmlType): Buffer {
  switch (type) {
    case GgmlType.F32:
      return Buffer.from(new Float32Array(data).buffer);
    case GgmlType.F16:
      return encodeF16(data);
    case GgmlType.Q8_0:
      return encodeQ8_0(data);
    case GgmlType.Q5_0:
      return encodeQ5_0(data);
  }
}

function encodeF16(data: Float32Array): Buffer {
  const out = Buffer.alloc(data.length * 2);
  for (let i = 0; i < data.length; i++) out.writeUInt16LE(float32ToFloat16Bits(data[i]), i * 2);
  return out;
}

/** Mirrors ggml's quantize_row_q8_0_ref: d = amax / 127, q = roundf(x / d). */
function encodeQ8_0(data: Float32Array): Buffer {
  if (data.length % Q8_0_BLOCK_SIZE !== 0) {
    throw new RangeError(`Q8_0 needs a multiple of ${Q8_0_BLOCK_SIZE} values, got ${data.length}`);
  }
  const blocks = data.length / Q8_0_BLOCK_SIZE;
  const out = Buffer.alloc(blocks * Q8_0_BLOCK_BYTES);
  for (let b = 0; b < blocks; b++) {
    const start = b * Q8_0_BLOCK_SIZE;
    let amax = 0;
    for (let i = 0; i < Q8_0_BLOCK_SIZE; i++) amax = Math.max(amax, Math.abs(data[start + i]));
    const d = amax / 127;
    const inverse = d ? 1 / d : 0;
    const offset = b * Q8_0_BLOCK_BYTES;
    out.writeUInt16LE(float32ToFloat16Bits(d), offset);
    for (let i = 0; i < Q8_0_BLOCK_SIZE; i++) {
      out.writeInt8(roundHalfAwayFromZero(data[start + i] * inverse), offset + 2 + i);
    }
  }
  return out;
}

/**
 * ggml's Q5_0 rounding: the scale is the block's largest-magnitude value over -16, each value
 * becomes q = min(31, trunc(x / d + 16.5)) in 0..31 (x = d·(q − 16)); element j and j + 16 share
 * a byte of low nibbles, and bit j of the 32-bit word holds element j's fifth bit.
 */
function encodeQ5_0(data: Float32Array): Buffer {
  if (data.length % Q8_0_BLOCK_SIZE !== 0) {
    throw new RangeError(`Q5_0 needs a multiple of ${Q8_0_BLOCK_SIZE} values, got ${data.length}`);
  }
  const blocks = data.length / Q8_0_BLOCK_SIZE;
  const out = Buffer.alloc(blocks * Q5_0_BLOCK_BYTES);
  const half = Q8_0_BLOCK_SIZE / 2;
  for (let b = 0; b < blocks; b++) {
    const start = b * Q8_0_BLOCK_SIZE;
    let extreme = 0;
    for (let i = 0; i < Q8_0_BLOCK_SIZE; i++) if (Math.abs(data[start + i]) > Math.abs(extreme)) extreme = data[start + i];
    const d = extreme / -16;
    const inverse = d ? 1 / d : 0;
    const offset = b * Q5_0_BLOCK_BYTES;
    const quant = (x: number) => Math.min(31, Math.trunc(x * inverse + 16.5));
    let highBits = 0;
    for (let j = 0; j < half; j++) {
      const low = quant(data[start + j]);
      const high = quant(data[start + half + j]);
      out.writeUInt8((low & 0x0f) | ((high & 0x0f) << 4), offset + 6 + j);
      highBits |= ((low >> 4) & 1) << j;
      highBits |= ((high >> 4) & 1) << (j + half);
    }
    out.writeUInt16LE(float32ToFloat16Bits(d), offset);
    out.writeUInt32LE(highBits >>> 0, offset + 2);
  }
  return out;
}

/**
 * Q5_0 blocks rewritten as Q8_0 blocks holding the same values exactly: a Q5_0 value is d·q with
 * q in -16..15, which is already an int8, so each block keeps its f16 scale and stores q as a
 * byte. llama.cpp reads Q8_0 matrices with faster kernels (AMX tiles where the CPU has them;
 * docs/history/2026-12-04-bench-q8-shifted-reuse.md, "Q8_0 matrices"), at 34 bytes per 32 values instead of 22.
 */
export function q5_0ToQ8_0(q5: Buffer): Buffer {
  if (q5.length % Q5_0_BLOCK_BYTES !== 0) throw new RangeError(`${q5.length} bytes are not whole Q5_0 blocks`);
  const blocks = q5.length / Q5_0_BLOCK_BYTES;
  const q8 = Buffer.alloc(blocks * Q8_0_BLOCK_BYTES);
  const quants = new Int8Array(Q8_0_BLOCK_SIZE);
  for (let b = 0; b < blocks; b++) {
    const to = b * Q8_0_BLOCK_BYTES;
    q5.copy(q8, to, b * Q5_0_BLOCK_BYTES, b * Q5_0_BLOCK_BYTES + 2);
    unpackQ5_0Block(q5, b * Q5_0_BLOCK_BYTES, quants);
    q8.set(new Uint8Array(quants.buffer), to + 2);
  }
  return q8;
}

/**
 * The 32 signed quants q (−16..15) of the Q5_0 block at `offset`: element j and j + 16 share a
 * byte of low nibbles, bit j of the 32-bit word after the scale holds element j's fifth bit.
 */
function unpackQ5_0Block(bytes: Buffer, offset: number, out: Int8Array): void {
  const half = Q8_0_BLOCK_SIZE / 2;
  const highBits = bytes.readUInt32LE(offset + 2);
  for (let j = 0; j < half; j++) {
    const packed = bytes[offset + 6 + j]!;
    out[j] = ((packed & 0x0f) | (((highBits >>> j) & 1) << 4)) - 16;
    out[half + j] = ((packed >> 4) | (((highBits >>> (j + half)) & 1) << 4)) - 16;
  }
}

function roundHalfAwayFromZero(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** Decode `count` values of a writable type; used by tests and tools to check written files. */
export function decodeTensorData(bytes: Buffer, type: WritableGgmlType, count: number): Float32Array {
  const out = new Float32Array(count);
  if (type === GgmlType.F32) {
    for (let i = 0; i < count; i++) out[i] = bytes.readFloatLE(i * 4);
  } else if (type === GgmlType.F16) {
    for (let i = 0; i < count; i++) out[i] = float16BitsToFloat32(bytes.readUInt16LE(i * 2));
  } else if (type === GgmlType.Q5_0) {
    decodeQ5_0(bytes, out);
  } else {
    for (let i = 0; i < count; i++) {
      const offset = Math.floor(i / Q8_0_BLOCK_SIZE) * Q8_0_BLOCK_BYTES;
      const d = float16BitsToFloat32(bytes.readUInt16LE(offset));
      out[i] = d * bytes.readInt8(offset + 2 + (i % Q8_0_BLOCK_SIZE));
    }
  }
  return out;
}

function decodeQ5_0(bytes: Buffer, out: Float32Array): void {
  const quants = new Int8Array(Q8_0_BLOCK_SIZE);
  for (let start = 0; start < out.length; start += Q8_0_BLOCK_SIZE) {
    const offset = (start / Q8_0_BLOCK_SIZE) * Q5_0_BLOCK_BYTES;
    const d = float16BitsToFloat32(bytes.readUInt16LE(offset));
    unpackQ5_0Block(bytes, offset, quants);
    for (let i = 0; i < Q8_0_BLOCK_SIZE; i++) out[start + i] = d * quants[i]!;
  }
}
