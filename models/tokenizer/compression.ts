/**
 * Measurements behind the vocabulary size: compression (UTF-8 bytes per token on held-out
 * files, tokenized line by line as prompts are) and the training throughput implied by
 * PLATFORM-FACTS' CPU measurements.
 */
import { splitKeepingNewlines } from '../../server/src/prompt/lineTokenizer.js';
import { encodeAll } from './hfTokenizer.js';
import type { Tokenizer } from 'tokenizers';

/** Bytes and tokens of texts, each tokenized line by line (each line with its '\n'). */
export async function measureCompression(tokenizer: Tokenizer, texts: readonly string[]): Promise<{ bytes: number; tokens: number; bytesPerToken: number }> {
  let bytes = 0;
  let tokens = 0;
  for (const text of texts) {
    bytes += Buffer.byteLength(text, 'utf8');
    for (const ids of await encodeAll(tokenizer, splitKeepingNewlines(text))) tokens += ids.length;
  }
  return { bytes, tokens, bytesPerToken: tokens === 0 ? 0 : bytes / tokens };
}

/**
 * Training tokens/s of a d=256, 6-layer model (4.8M non-embedding parameters, tied output)
 * with vocabulary `vocabSize`, on this machine (2 threads, bf16): a line through PLATFORM-FACTS'
 * two d=256 rows (49,152 -> 1,692 tok/s at 17.4M parameters; 8,192 -> 3,235 tok/s at 6.9M),
 * seconds per token = a + b * parameters.
 */
export function estimatedTrainingTokensPerSecond(vocabSize: number): number {
  const params = (p: number) => p / 1e6;
  const b = (1 / 1692 - 1 / 3235) / (params(17.4e6) - params(6.9e6));
  const a = 1 / 3235 - b * params(6.9e6);
  return 1 / (a + b * params(4.8e6 + vocabSize * 256));
}
