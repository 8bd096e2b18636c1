/**
 * The special tokens behave as designed in llama.cpp: each is one CONTROL id when specials are
 * parsed, plain text (never that id) when they are not, and detokenizes to "" unless asked.
 */
import { REPOSHAPLEY_SPECIAL_TOKENS } from '../../server/src/model/specialTokens.js';
import type { LlamaVocab } from './llamaVocab.js';
import { tokenId, type TokenizerArtifact } from './tokenizerArtifact.js';

/** Problems found, one line each; empty when every special token behaves. */
export function checkSpecialTokens(artifact: TokenizerArtifact, vocab: LlamaVocab): string[] {
  const problems: string[] = [];
  for (const text of REPOSHAPLEY_SPECIAL_TOKENS) {
    const id = tokenId(artifact, text);
    const parsed = vocab.tokenizeWithSpecials(text);
    if (parsed.length !== 1 || parsed[0] !== id) problems.push(`${text}: parsed as [${parsed}] instead of [${id}]`);
    const plain = vocab.tokenize(text);
    if (plain.includes(id)) problems.push(`${text}: plain-text tokenization yields the special id ${id}`);
    if (vocab.detokenize(plain) !== text) problems.push(`${text}: plain-text tokens do not detokenize to the text`);
    if (vocab.detokenize([id]) !== '') problems.push(`${text}: detokenizes to ${JSON.stringify(vocab.detokenize([id]))} without specials`);
    if (vocab.detokenize([id], true) !== text) problems.push(`${text}: detokenizes to ${JSON.stringify(vocab.detokenize([id], true))} with specials`);
  }
  return problems;
}
