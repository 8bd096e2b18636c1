/**
 * Tokenization by whole lines: a text's ids are the concatenation of each line's ids
 * (the line with its '\n'). This is the project's definition of how prompts are tokenized,
 * shared by inference and training data, and it makes budgets by whole lines exact and cheap:
 * lines are cached, so a keystroke re-tokenizes one line, and the tokens of unchanged lines
 * stay identical, which keeps the model's KV-cache prefix reusable.
 */
import { LRUCache } from 'lru-cache';
import { detachedCopy } from '../util/strings.js';

/** Anything that turns plain text (no special tokens) into ids. */
export interface Tokenizer {
  tokenize(text: string): number[];
}

/**
 * A prompt has a few hundred distinct lines (prefix, suffix, ten chunk windows); keeping the
 * lines of the last few dozen prompts is what KV-cache reuse needs. A larger cache churned by
 * eviction fragments the server's old-generation heap (docs/reliability.md).
 */
const DEFAULT_CACHED_LINES = 8_192;

export class LineTokenizer {
  private readonly cache: LRUCache<string, number[]>;

  constructor(private readonly tokenizer: Tokenizer, cachedLines = DEFAULT_CACHED_LINES) {
    this.cache = new LRUCache({ max: cachedLines });
  }

  /** Ids of one piece of text that contains at most one trailing '\n'. */
  piece(text: string): number[] {
    let ids = this.cache.get(text);
    if (!ids) {
      ids = text.length === 0 ? [] : this.tokenizer.tokenize(text);
      // The line is usually a slice of a whole document; a cached slice would keep it alive.
      this.cache.set(detachedCopy(text), ids);
    }
    return ids;
  }

  /** Ids of multi-line text, line by line. */
  text(text: string): number[] {
    const out: number[] = [];
    for (const piece of splitKeepingNewlines(text)) out.push(...this.piece(piece));
    return out;
  }
}

/** 'a\nb\n' -> ['a\n', 'b\n']; 'a\nb' -> ['a\n', 'b']; '' -> []. */
export function splitKeepingNewlines(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    pieces.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}
