/**
 * Reads the trainer's tensor dump (models/train/dump.py documents the layout): a JSON header
 * with the model config and tensor table, then float32 tensors. Tensors are read lazily, one at
 * a time, so exporting a large model never holds all weights in memory.
 */
import { open } from 'node:fs/promises';

const MAGIC = 'RSTENSOR';
const VERSION = 1;
const ALIGN = 64;

/** models/train/model.py ModelConfig, as the dump stores it. */
export interface DumpModelConfig {
  vocab_size: number;
  d_model: number;
  n_layers: number;
  n_heads: number;
  n_kv_heads: number;
  ff_dim: number;
  context_length: number;
  rope_theta: number;
  norm_eps: number;
  tie_embeddings: boolean;
}

/** One tensor: llama.cpp name, torch-order shape ([rows, cols]), data offset from the data start. */
export interface DumpTensor {
  name: string;
  shape: number[];
  dtype: 'f32';
  offset: number;
  count: number;
}

export interface TensorDump {
  path: string;
  architecture: string;
  config: DumpModelConfig;
  /** Training provenance: step, tokens_seen, val_loss, source... (free-form). */
  meta: Record<string, unknown>;
  tensors: DumpTensor[];
  /** Absolute offset of the data section. */
  dataStart: number;
  /** Read one tensor's values. */
  read(tensor: DumpTensor): Promise<Float32Array>;
}

/** Parse the header of a dump; throws with the path on a malformed file. */
export async function openTensorDump(path: string): Promise<TensorDump> {
  const file = await open(path, 'r');
  try {
    const fixed = Buffer.alloc(24);
    await file.read(fixed, 0, 24, 0);
    if (fixed.toString('latin1', 0, 8) !== MAGIC) throw new Error(`${path} is not a tensor dump (bad magic)`);
    const version = fixed.readUInt32LE(8);
    if (version !== VERSION) throw new Error(`${path}: tensor dump version ${version}, expected ${VERSION}`);
    const headerBytes = Number(fixed.readBigUInt64LE(16));
    const headerBuffer = Buffer.alloc(headerBytes);
    await file.read(headerBuffer, 0, headerBytes, 24);
    const header = JSON.parse(headerBuffer.toString('utf8')) as {
      architecture: string; config: DumpModelConfig; meta?: Record<string, unknown>; tensors: DumpTensor[];
    };
    const dataStart = Math.ceil((24 + headerBytes) / ALIGN) * ALIGN;
    const { size } = await file.stat();
    for (const t of header.tensors) {
      if (t.dtype !== 'f32') throw new Error(`${path}: tensor ${t.name} has dtype ${t.dtype}, expected f32`);
      if (t.shape.reduce((a, b) => a * b, 1) !== t.count) throw new Error(`${path}: tensor ${t.name} shape/count mismatch`);
      if (dataStart + t.offset + t.count * 4 > size) throw new Error(`${path} is truncated (tensor ${t.name})`);
    }
    return {
      path,
      architecture: header.architecture,
      config: header.config,
      meta: header.meta ?? {},
      tensors: header.tensors,
      dataStart,
      read: (tensor) => readTensor(path, dataStart, tensor),
    };
  } finally {
    await file.close();
  }
}

async function readTensor(path: string, dataStart: number, tensor: DumpTensor): Promise<Float32Array> {
  const file = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(tensor.count * 4);
    const { bytesRead } = await file.read(bytes, 0, bytes.length, dataStart + tensor.offset);
    if (bytesRead !== bytes.length) throw new Error(`${path}: short read of tensor ${tensor.name}`);
    // Copy into an aligned Float32Array; the host is little-endian like the file (x86, arm64).
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  } finally {
    await file.close();
  }
}
