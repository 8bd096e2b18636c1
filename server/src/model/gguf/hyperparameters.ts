/**
 * Hyperparameter checks before llama.cpp sees a file. llama.cpp asserts (GGML_ASSERT: abort, the
 * whole process gone) on some values a well-formed header can carry: zero heads, layers or
 * feed-forward width, a non-finite norm epsilon (issue 22). These are refused here with a message
 * naming the key, so the server says what is wrong instead of dying. They cannot catch every
 * assert (some fire during evaluation); they catch the ones a header can show.
 */
import { kvArray, kvString, type GgufHeader } from './ggufReader.js';
import { GgufValueType } from './ggufTypes.js';

/** More positions than any released model's context; 0xFFFFFFFF read as -1 gave empty completions forever. */
const MAX_CONTEXT_LENGTH = 1 << 24;
/** More layers than any released model has; a corrupt count would allocate without end. */
const MAX_LAYERS = 1024;

/** The first problem with the header's model hyperparameters, or undefined when they look sane. */
export function hyperparameterProblem(header: GgufHeader): string | undefined {
  const arch = kvString(header, 'general.architecture');
  if (!arch) return undefined; // reported as missing by the caller
  const number = (key: string): number | undefined => {
    const entry = header.kv.get(`${arch}.${key}`);
    if (!entry || entry.type === GgufValueType.ARRAY) return undefined;
    return typeof entry.value === 'number' ? entry.value : typeof entry.value === 'bigint' ? Number(entry.value) : NaN;
  };
  const count = (key: string, max = Number.MAX_SAFE_INTEGER): string | undefined => {
    const value = number(key);
    if (value === undefined) return undefined;
    return Number.isInteger(value) && value >= 1 && value <= max ? undefined : `${arch}.${key} is ${value}; it must be a whole number from 1 to ${max}`;
  };
  const problem = count('block_count', MAX_LAYERS) ?? count('embedding_length') ?? count('feed_forward_length')
    ?? count('attention.head_count') ?? count('attention.head_count_kv') ?? count('context_length', MAX_CONTEXT_LENGTH)
    ?? headsProblem(arch, number) ?? epsilonProblem(arch, number) ?? embeddingShapeProblem(header, number('embedding_length'));
  return problem;
}

function headsProblem(arch: string, number: (key: string) => number | undefined): string | undefined {
  const [heads, kvHeads, width, keyLength] = [number('attention.head_count'), number('attention.head_count_kv'), number('embedding_length'), number('attention.key_length')];
  if (heads !== undefined && kvHeads !== undefined && heads % kvHeads !== 0) {
    return `${arch}.attention.head_count (${heads}) is not a multiple of ${arch}.attention.head_count_kv (${kvHeads})`;
  }
  if (heads !== undefined && width !== undefined && keyLength === undefined && width % heads !== 0) {
    return `${arch}.embedding_length (${width}) is not a multiple of ${arch}.attention.head_count (${heads})`;
  }
  return undefined;
}

function epsilonProblem(arch: string, number: (key: string) => number | undefined): string | undefined {
  for (const key of ['attention.layer_norm_rms_epsilon', 'attention.layer_norm_epsilon']) {
    const value = number(key);
    if (value !== undefined && !(Number.isFinite(value) && value > 0 && value < 1)) return `${arch}.${key} is ${value}; a norm epsilon is a small positive number`;
  }
  return undefined;
}

/** token_embd must be [embedding_length, vocabulary size]: a mismatch reads past rows in llama.cpp. */
function embeddingShapeProblem(header: GgufHeader, width: number | undefined): string | undefined {
  const embedding = header.tensors.find((t) => t.name === 'token_embd.weight');
  const vocabulary = kvArray(header, 'tokenizer.ggml.tokens')?.length;
  if (!embedding || vocabulary === undefined) return undefined;
  if (width !== undefined && embedding.ne[0] !== width) return `token_embd.weight rows have ${embedding.ne[0]} values, the embedding length is ${width}`;
  if (embedding.ne[1] !== vocabulary) return `token_embd.weight has ${embedding.ne[1]} rows for ${vocabulary} tokens`;
  return undefined;
}
