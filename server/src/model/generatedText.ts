/**
 * Where a generation's tokens end once its text is cut, for every ModelSession adapter: both the
 * local and the remote session decode token prefixes to text, and keep a prefix of the tokens.
 * `textOf(n)` is the text of the first n generated tokens.
 */
import type { GenerationResult } from './completionModel.js';

/**
 * A limit, an abort or a stop token can cut a multi-byte character, whose bytes decode to
 * U+FFFD; the tokens are dropped from the end until the text no longer ends in one, rather than
 * hand the editor a replacement character.
 */
export function withoutPartialCharacter(
  tokens: readonly number[], textOf: (count: number) => string, stoppedBy: GenerationResult['stoppedBy'],
): GenerationResult {
  let count = tokens.length;
  let text = textOf(count);
  while (count > 0 && text.endsWith('\uFFFD')) text = textOf(--count);
  return { text, tokens: tokens.slice(0, count), stoppedBy };
}

/** The text cut at a stop rule, with the tokens whose text lies wholly inside it. */
export function cutAt(
  tokens: readonly number[], textOf: (count: number) => string, text: string, stoppedBy: GenerationResult['stoppedBy'],
): GenerationResult {
  let count = tokens.length;
  while (count > 0 && textOf(count).length > text.length) count--;
  return { text, tokens: tokens.slice(0, count), stoppedBy };
}
