import { mkdtemp, readFile, rm, truncate, writeFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GgufWriter } from './ggufWriter.js';
import { readGgufHeader, readTensorBytes, type GgufHeader } from './ggufReader.js';
import {
  GgmlType,
  GgufValueType,
  decodeTensorData,
  float16BitsToFloat32,
  float32ToFloat16Bits,
  type WritableGgmlType,
} from './ggufTypes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gguf-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function ramp(count: number, scale = 1): Float32Array {
  // Mixed signs and magnitudes, deterministic.
  return Float32Array.from({ length: count }, (_, i) => Math.sin(i * 0.37) * scale * (1 + (i % 7)));
}

async function readOk(file: string): Promise<GgufHeader> {
  const result = await readGgufHeader(file);
  if (result.kind !== 'ok') throw new Error(result.message);
  return result.header;
}

describe('float16', () => {
  test.each([
    [0, 0x0000], [-0, 0x8000], [1, 0x3c00], [-2, 0xc000], [65504, 0x7bff], [1e6, 0x7c00],
    [Infinity, 0x7c00], [-Infinity, 0xfc00], [2 ** -24, 0x0001], [2 ** -14, 0x0400], [0.1, 0x2e66],
    [1 + 2 ** -11, 0x3c00], // tie rounds to even (down)
    [1 + 3 * 2 ** -11, 0x3c02], // tie rounds to even (up)
  ])('%d encodes as %s', (value, bits) => {
    expect(float32ToFloat16Bits(value)).toBe(bits);
  });

  test('NaN stays NaN', () => {
    expect(float16BitsToFloat32(float32ToFloat16Bits(NaN))).toBeNaN();
  });

  test('round trip is within half an f16 ulp over a wide range', () => {
    for (let i = -2000; i <= 2000; i++) {
      const value = Math.sign(i) * Math.exp(i / 200);
      const back = float16BitsToFloat32(float32ToFloat16Bits(value));
      const tolerance = Math.abs(value) < 2 ** -14 ? 2 ** -25 : Math.abs(value) * 2 ** -11;
      expect(Math.abs(back - value)).toBeLessThanOrEqual(tolerance + 1e-300);
    }
  });
});

describe('GGUF writer and reader', () => {
  const scalarCases: Array<[string, number | bigint | boolean | string, GgufValueType, number | bigint | boolean | string]> = [
    ['t.u8', 250, GgufValueType.UINT8, 250],
    ['t.i8', -100, GgufValueType.INT8, -100],
    ['t.u16', 65000, GgufValueType.UINT16, 65000],
    ['t.i16', -32000, GgufValueType.INT16, -32000],
    ['t.u32', 4_000_000_000, GgufValueType.UINT32, 4_000_000_000],
    ['t.i32', -2_000_000_000, GgufValueType.INT32, -2_000_000_000],
    ['t.f32', 0.5, GgufValueType.FLOAT32, 0.5],
    ['t.bool', true, GgufValueType.BOOL, true],
    ['t.string', 'héllo <NEED> ▁<PRE>', GgufValueType.STRING, 'héllo <NEED> ▁<PRE>'],
    ['t.u64', 2n ** 60n, GgufValueType.UINT64, 2n ** 60n],
    ['t.u64small', 12, GgufValueType.UINT64, 12],
    ['t.i64', -(2n ** 62n), GgufValueType.INT64, -(2n ** 62n)],
    ['t.f64', Math.PI, GgufValueType.FLOAT64, Math.PI],
  ];
  const tensors: Array<[string, number[], WritableGgmlType]> = [
    ['a.f32', [64, 3], GgmlType.F32],
    ['b.f16', [5, 7], GgmlType.F16],
    ['c.q8', [96, 2], GgmlType.Q8_0],
    ['e.q5', [64, 3], GgmlType.Q5_0],
    ['d.vec', [33], GgmlType.F32],
  ];
  let file: string;
  let header: GgufHeader;

  beforeAll(async () => {
    file = path.join(dir, 'roundtrip.gguf');
    const writer = new GgufWriter();
    for (const [key, value, type] of scalarCases) writer.addKv(key, value, type);
    writer
      .addKv('t.inferred.string', 'x')
      .addKv('t.inferred.uint', 7)
      .addKv('t.inferred.int', -7)
      .addKv('t.inferred.float', 1.25)
      .addKv('t.strings', ['a', '', 'ĠĠ', '<|fim_prefix|>'])
      .addKv('t.i32s', [1, -2, 3], GgufValueType.INT32)
      .addKv('t.typed', new Float32Array([0.25, -1]))
      .addKv('t.empty', [], GgufValueType.UINT8)
      .addKv('general.alignment', 64, GgufValueType.UINT32);
    for (const [name, ne, type] of tensors) {
      const count = ne.reduce((a, b) => a * b, 1);
      // One lazy source proves lazily supplied tensors are written the same.
      writer.addTensor(name, ne, name === 'b.f16' ? () => ramp(count) : ramp(count), type);
    }
    await writer.write(file);
    header = await readOk(file);
  });

  test.each(scalarCases)('scalar %s', (key, _value, type, expected) => {
    expect(header.kv.get(key)).toEqual({ type, value: expected });
  });

  test('inferred scalar types', () => {
    expect(header.kv.get('t.inferred.string')).toEqual({ type: GgufValueType.STRING, value: 'x' });
    expect(header.kv.get('t.inferred.uint')).toEqual({ type: GgufValueType.UINT32, value: 7 });
    expect(header.kv.get('t.inferred.int')).toEqual({ type: GgufValueType.INT32, value: -7 });
    expect(header.kv.get('t.inferred.float')).toEqual({ type: GgufValueType.FLOAT32, value: 1.25 });
  });

  test('arrays', () => {
    const array = (elementType: GgufValueType, value: unknown[]) => ({ type: GgufValueType.ARRAY, elementType, value });
    expect(header.kv.get('t.strings')).toEqual(array(GgufValueType.STRING, ['a', '', 'ĠĠ', '<|fim_prefix|>']));
    expect(header.kv.get('t.i32s')).toEqual(array(GgufValueType.INT32, [1, -2, 3]));
    expect(header.kv.get('t.typed')).toEqual(array(GgufValueType.FLOAT32, [0.25, -1]));
    expect(header.kv.get('t.empty')).toEqual(array(GgufValueType.UINT8, []));
  });

  test('tensor infos and alignment', () => {
    expect(header.version).toBe(3);
    expect(header.alignment).toBe(64);
    expect(header.dataOffset % 64).toBe(0);
    expect(header.tensors.map((t) => [t.name, t.ne, t.type])).toEqual(tensors);
    for (const tensor of header.tensors) expect(tensor.offset % 64).toBe(0);
  });

  test.each(tensors)('tensor %s values survive within the type tolerance', async (name, ne, type) => {
    const info = header.tensors.find((t) => t.name === name)!;
    const count = ne.reduce((a, b) => a * b, 1);
    const expected = ramp(count);
    const actual = decodeTensorData(await readTensorBytes(file, header, info), type, count);
    for (let i = 0; i < count; i++) {
      const blockMax = Math.max(...expected.subarray(i - (i % 32), i - (i % 32) + 32).map(Math.abs));
      const step = type === GgmlType.Q5_0 ? blockMax / 16 : blockMax / 127;
      const tolerance = type === GgmlType.F32 ? 0 : type === GgmlType.F16 ? Math.abs(expected[i]) * 2 ** -11 : step * 0.6;
      expect(Math.abs(actual[i] - expected[i])).toBeLessThanOrEqual(tolerance);
    }
  });

  test('a KV that does not fit its type is rejected when added', () => {
    const writer = new GgufWriter();
    expect(() => writer.addKv('x', 300, GgufValueType.UINT8)).toThrow(RangeError);
    expect(() => writer.addKv('y', 1.5, GgufValueType.INT32)).toThrow(TypeError);
    expect(() => writer.addKv('z', 'text', GgufValueType.UINT32)).toThrow(TypeError);
    writer.addKv('w', 1);
    expect(() => writer.addKv('w', 2)).toThrow(/duplicate/);
  });

  test('bad tensors are rejected when added', () => {
    const writer = new GgufWriter();
    expect(() => writer.addTensor('q', [33, 1], new Float32Array(33), GgmlType.Q8_0)).toThrow(/divisible by 32/);
    expect(() => writer.addTensor('n', [4, 4], new Float32Array(15))).toThrow(/15 values/);
  });
});

describe('reader errors', () => {
  test('missing file', async () => {
    expect(await readGgufHeader(path.join(dir, 'nope.gguf'))).toMatchObject({ kind: 'missing' });
  });

  test('random bytes are not GGUF', async () => {
    const file = path.join(dir, 'random.bin');
    await writeFile(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
    const result = await readGgufHeader(file);
    expect(result.kind).toBe('invalid');
    expect(result.kind !== 'ok' && result.message).toMatch(/bad magic/);
  });

  test('empty file', async () => {
    const file = path.join(dir, 'empty.gguf');
    await writeFile(file, '');
    expect(await readGgufHeader(file)).toMatchObject({ kind: 'invalid' });
  });

  test('a file cut in its metadata or in its tensor data is truncated', async () => {
    const file = path.join(dir, 'whole.gguf');
    const writer = new GgufWriter().addKv('general.architecture', 'llama').addKv('k.strings', ['a'.repeat(100), 'b'.repeat(100)]);
    writer.addTensor('w', [64, 64], ramp(64 * 64), GgmlType.F32);
    await writer.write(file);
    const size = (await stat(file)).size;
    const bytes = await readFile(file);
    for (const [cut, pattern] of [[150, /truncated inside its metadata/], [size - 100, /truncated: tensor data needs/]] as const) {
      const cutFile = path.join(dir, `cut-${cut}.gguf`);
      await writeFile(cutFile, bytes);
      await truncate(cutFile, cut);
      const result = await readGgufHeader(cutFile);
      expect(result.kind).toBe('invalid');
      expect(result.kind !== 'ok' && result.message).toMatch(pattern);
    }
  });

  test('an absurd count is reported, not allocated', async () => {
    const file = path.join(dir, 'absurd.gguf');
    const bytes = Buffer.alloc(64);
    bytes.write('GGUF', 0, 'latin1');
    bytes.writeUInt32LE(3, 4);
    bytes.writeBigUInt64LE(0n, 8);
    bytes.writeBigUInt64LE(2n ** 50n, 16);
    await writeFile(file, bytes);
    const result = await readGgufHeader(file);
    expect(result.kind !== 'ok' && result.message).toMatch(/larger than the file/);
  });
});
