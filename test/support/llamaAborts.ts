/**
 * Model files that make llama.cpp abort the process (GGML_ASSERT, SIGABRT) although they pass
 * every header check the loader makes: what the model host (server/src/model/childProcess/)
 * exists for. Each is the tiny llama model with one key changed, and the assert llama.cpp prints.
 */
import { GgufValueType, type GgufValue } from '../../server/src/model/gguf/ggufTypes.js';
import { patchGguf } from '../../server/src/model/gguf/patchGguf.js';

const u32 = (value: number): GgufValue => ({ type: GgufValueType.UINT32, value });

/** [name, the keys changed, the assertion llama.cpp fails]. */
export const LLAMA_ABORTS: [string, Record<string, GgufValue>, RegExp][] = [
  // A dense model (no experts) that says two experts are used per token: llama-model.cpp
  // asserts n_expert_used <= n_expert while reading the hyperparameters.
  ['experts used on a dense model', { 'llama.expert_used_count': u32(2) }, /GGML_ASSERT\(n_expert_used_max <= hparams\.n_expert\) failed/],
];

/** Writes the tiny model at `modelPath` with `changes` to `out`. */
export async function writeAbortingModel(modelPath: string, out: string, changes: Record<string, GgufValue>): Promise<string> {
  await patchGguf(modelPath, out, { kv: new Map(Object.entries(changes)), rows: [] });
  return out;
}
