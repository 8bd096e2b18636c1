/**
 * A LoRA adapter folded into the weights it adapts, so the model runs without it.
 *
 * llama.cpp applies an adapter at every matrix product, W·x + s·B·(A·x), and cannot keep its
 * tensors in the CPU's repacked (AMX) buffers: on the project's AMX Xeon the 0.5B reads a prompt
 * at ~300 tok/s with its F2 adapter and ~440 without (docs/benchmarks.md, "Merged adapter").
 * Folding W' = W + s·B·A gives the same products at the speed of no adapter; W' is stored as
 * Q8_0, whose rounding is the only difference from the adapter applied at run time.
 *
 * The adapter GGUF's layout is llama.cpp's (and models/train/lora_gguf.py's): for a weight W with
 * ne [in, out], `W.lora_a` has ne [in, rank] and `W.lora_b` ne [rank, out]; the scale is
 * `adapter.lora.alpha / rank`, or 1 where alpha is 0 or absent (llama.cpp's llama_adapter_lora_weight).
 */
import { kvNumber, kvString, readGgufHeader, readTensorBytes, type GgufHeader, type GgufTensorInfo } from './ggufReader.js';
import { GgmlType, decodeTensorData, type WritableGgmlType } from './ggufTypes.js';

/** One adapted weight's low-rank factors, as float32 in ggml row order. */
export interface LoraFactors {
  rank: number;
  inputs: number;
  outputs: number;
  /** rank rows of `inputs` values. */
  a: Float32Array;
  /** `outputs` rows of rank values. */
  b: Float32Array;
  /** alpha / rank, or 1 without alpha. */
  scale: number;
}

/** Every weight an adapter adapts, by the weight's tensor name (`blk.0.attn_q.weight`). */
export type LoraAdapterWeights = ReadonlyMap<string, LoraFactors>;

/** Types whose values the merge can read (the writer's own). */
const READABLE_TYPES = new Set<GgmlType>([GgmlType.F32, GgmlType.F16, GgmlType.Q8_0, GgmlType.Q5_0]);

/** Reads a LoRA adapter GGUF's factors; throws with a message naming what is wrong. */
export async function readLoraAdapter(path: string): Promise<LoraAdapterWeights> {
  const read = await readGgufHeader(path);
  if (read.kind !== 'ok') throw new Error(`LoRA adapter ${path}: ${read.message}`);
  const { header } = read;
  if (kvString(header, 'general.type') !== 'adapter' || kvString(header, 'adapter.type') !== 'lora') {
    throw new Error(`${path} is not a LoRA adapter GGUF (general.type "adapter", adapter.type "lora")`);
  }
  const alpha = kvNumber(header, 'adapter.lora.alpha') ?? 0;
  const byName = new Map(header.tensors.map((t) => [t.name, t]));
  const weights = new Map<string, LoraFactors>();
  for (const tensor of header.tensors) {
    if (!tensor.name.endsWith('.lora_a')) continue;
    const target = tensor.name.slice(0, -'.lora_a'.length);
    const b = byName.get(`${target}.lora_b`);
    if (!b) throw new Error(`LoRA adapter ${path}: ${target} has lora_a and no lora_b`);
    const [inputs, rank] = [tensor.ne[0]!, tensor.ne[1]!];
    if (tensor.ne.length !== 2 || b.ne.length !== 2 || b.ne[0] !== rank) {
      throw new Error(`LoRA adapter ${path}: ${target}'s lora_a [${tensor.ne.join(', ')}] and lora_b [${b.ne.join(', ')}] do not pair`);
    }
    weights.set(target, {
      rank, inputs, outputs: b.ne[1]!,
      a: await readValues(path, header, tensor), b: await readValues(path, header, b),
      scale: alpha ? alpha / rank : 1,
    });
  }
  if (weights.size === 0) throw new Error(`LoRA adapter ${path} adapts no weight`);
  return weights;
}

async function readValues(path: string, header: GgufHeader, tensor: GgufTensorInfo): Promise<Float32Array> {
  if (!READABLE_TYPES.has(tensor.type)) throw new Error(`LoRA adapter ${path}: ${tensor.name} is stored as ${GgmlType[tensor.type] ?? tensor.type}`);
  const count = tensor.ne.reduce((x, y) => x * y, 1);
  return decodeTensorData(await readTensorBytes(path, header, tensor), tensor.type as WritableGgmlType, count);
}

/** Why `factors` cannot be folded into `weight`, or undefined when they fit. */
export function mergeProblem(weight: GgufTensorInfo, factors: LoraFactors): string | undefined {
  if (!READABLE_TYPES.has(weight.type)) return `${weight.name} is stored as ${GgmlType[weight.type] ?? weight.type}; a merge reads F32, F16, Q8_0 or Q5_0`;
  if (weight.ne.length !== 2 || weight.ne[0] !== factors.inputs || weight.ne[1] !== factors.outputs) {
    return `${weight.name} [${weight.ne.join(', ')}] does not fit its adapter (${factors.inputs} inputs, ${factors.outputs} outputs)`;
  }
  return undefined;
}

/**
 * W (the weight's `outputs` rows of `inputs` values) plus s·B·A, in place. Each row gets
 * Σ_r s·B[o][r]·A[r] accumulated in float64, so the result does not depend on the machine.
 */
export function addLoraProduct(weight: Float32Array, factors: LoraFactors): void {
  const { rank, inputs, outputs, a, b, scale } = factors;
  const row = new Float64Array(inputs);
  for (let o = 0; o < outputs; o++) {
    row.fill(0);
    for (let r = 0; r < rank; r++) {
      const coefficient = scale * b[o * rank + r]!;
      if (coefficient === 0) continue;
      const offset = r * inputs;
      for (let i = 0; i < inputs; i++) row[i]! += coefficient * a[offset + i]!;
    }
    const start = o * inputs;
    for (let i = 0; i < inputs; i++) weight[start + i]! += row[i]!;
  }
}

/** The weight's values with the adapter folded in (decoded from its stored type). */
export function mergedValues(weight: GgufTensorInfo, bytes: Buffer, factors: LoraFactors): Float32Array {
  const values = decodeTensorData(bytes, weight.type as WritableGgmlType, factors.inputs * factors.outputs);
  addLoraProduct(values, factors);
  return values;
}
