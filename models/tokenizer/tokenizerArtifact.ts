/**
 * The tokenizer artifact: what the GGUF export embeds, committed as models/default/tokenizer.json.
 * A byte-level BPE in llama.cpp's "gpt2" form with the "smollm" pre-tokenizer:
 *   ids 0..255            the 256 byte tokens (GPT-2 byte-to-unicode spelling), NORMAL
 *   ids 256..             merged tokens in merge order, NORMAL
 *   last ids              REPOSHAPLEY_SPECIAL_TOKENS (end of text, FIM, control, chunk delimiters), CONTROL
 * CONTROL, not USER_DEFINED: llama.cpp then matches a special text only when asked to parse
 * specials, so a source file that spells "<NEED>" stays plain text (PLATFORM-FACTS), and
 * detokenizing a control token gives "" unless asked.
 *
 * Pre-tokenizer "smollm" (each digit alone, then GPT-2's regex), not "gpt-2": llama.cpp turns
 * on `clean_spaces` for "gpt-2" (and "starcoder"), and its detokenizer then deletes the space
 * before `.`, `,`, `!`, `?` — `from . import x` comes back as `from. import x`, `a != b` as
 * `a!= b`. "smollm" has the same regex with digits isolated and leaves text as it is.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { END_OF_TEXT, FIM_MIDDLE, FIM_PREFIX, FIM_SUFFIX, REPOSHAPLEY_SPECIAL_TOKENS } from '../../server/src/model/specialTokens.js';
import { BYTE_TO_UNICODE } from './byteLevel.js';

/** llama.cpp's token types (llama_token_type). */
export const TokenType = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 } as const;

export const ARTIFACT_FORMAT = 'reposhapley-tokenizer/1';

export interface TokenizerArtifact {
  format: typeof ARTIFACT_FORMAT;
  /** `tokenizer.ggml.model` */
  model: 'gpt2';
  /** `tokenizer.ggml.pre`: digits isolated, then GPT-2's regex (Hugging Face: Digits + ByteLevel). */
  pre: 'smollm';
  tokens: string[];
  types: number[];
  /** "left right" in rank order (`tokenizer.ggml.merges`). */
  merges: string[];
  /** How it was made: trainer, corpus sample, measurements. Not read by any code. */
  training: Record<string, unknown>;
}

/**
 * Build an artifact of exactly `vocabSize` entries (specials included) from a trainer's merges
 * in learned order. BPE training is greedy, so the first k merges of a long run are what a run
 * asked for k merges would have learned: one training serves every size.
 */
export function buildArtifact(merges: ReadonlyArray<readonly [string, string]>, vocabSize: number, training: Record<string, unknown>): TokenizerArtifact {
  const specials = REPOSHAPLEY_SPECIAL_TOKENS;
  const normalTarget = vocabSize - specials.length;
  if (normalTarget < 256) throw new RangeError(`vocabulary of ${vocabSize} cannot hold 256 bytes and ${specials.length} specials`);
  const tokens = [...BYTE_TO_UNICODE];
  const known = new Set(tokens);
  const kept: string[] = [];
  for (const [left, right] of merges) {
    if (tokens.length >= normalTarget) break;
    if (!known.has(left) || !known.has(right)) throw new Error(`merge "${left} ${right}" uses a token not made by an earlier merge`);
    kept.push(`${left} ${right}`);
    const merged = left + right;
    // Two merges can spell the same token ("a bc", "ab c"); the vocabulary lists it once.
    if (!known.has(merged)) {
      known.add(merged);
      tokens.push(merged);
    }
  }
  if (tokens.length < normalTarget) throw new RangeError(`only ${tokens.length} tokens from ${merges.length} merges; ${normalTarget} wanted`);
  for (const special of specials) {
    if (known.has(special)) throw new Error(`special token ${special} is also a learned token`);
  }
  return {
    format: ARTIFACT_FORMAT,
    model: 'gpt2',
    pre: 'smollm',
    tokens: [...tokens, ...specials],
    types: [...tokens.map(() => TokenType.NORMAL), ...specials.map(() => TokenType.CONTROL)],
    merges: kept,
    training,
  };
}

/** Id of a token text; throws when absent. */
export function tokenId(artifact: TokenizerArtifact, text: string): number {
  const id = artifact.tokens.indexOf(text);
  if (id === -1) throw new Error(`tokenizer has no token ${JSON.stringify(text)}`);
  return id;
}

/** The ids the GGUF metadata names. */
export function specialIds(artifact: TokenizerArtifact): { endOfText: number; fimPrefix: number; fimSuffix: number; fimMiddle: number } {
  return {
    endOfText: tokenId(artifact, END_OF_TEXT),
    fimPrefix: tokenId(artifact, FIM_PREFIX),
    fimSuffix: tokenId(artifact, FIM_SUFFIX),
    fimMiddle: tokenId(artifact, FIM_MIDDLE),
  };
}

/** Structural checks; throws on the first problem. */
export function validateArtifact(artifact: TokenizerArtifact): void {
  if (artifact.format !== ARTIFACT_FORMAT) throw new Error(`unknown tokenizer format ${artifact.format}`);
  if (artifact.tokens.length !== artifact.types.length) throw new Error('tokens and types differ in length');
  if (new Set(artifact.tokens).size !== artifact.tokens.length) throw new Error('duplicate token texts');
  for (let b = 0; b < 256; b++) if (artifact.tokens[b] !== BYTE_TO_UNICODE[b]) throw new Error(`token ${b} is not byte ${b}`);
  const known = new Set(artifact.tokens);
  for (const merge of artifact.merges) {
    const parts = merge.split(' ');
    if (parts.length !== 2 || !known.has(parts[0]!) || !known.has(parts[1]!) || !known.has(parts[0]! + parts[1]!)) {
      throw new Error(`bad merge ${JSON.stringify(merge)}`);
    }
  }
  for (const special of REPOSHAPLEY_SPECIAL_TOKENS) {
    if (artifact.types[tokenId(artifact, special)] !== TokenType.CONTROL) throw new Error(`${special} is not a CONTROL token`);
  }
}

/** Compact JSON: one field per line, arrays on one line each (a few hundred KB). */
export function serializeArtifact(artifact: TokenizerArtifact): string {
  const fields = Object.entries(artifact).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  return `{\n${fields.join(',\n')}\n}\n`;
}

export async function readArtifact(path: string): Promise<TokenizerArtifact> {
  const artifact = JSON.parse(await readFile(path, 'utf8')) as TokenizerArtifact;
  validateArtifact(artifact);
  return artifact;
}

export async function writeArtifact(path: string, artifact: TokenizerArtifact): Promise<void> {
  validateArtifact(artifact);
  await writeFile(path, serializeArtifact(artifact));
}
