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
  /**
   * Many texts at once, where tokenizing happens elsewhere (a model server): then tokenize()
   * may throw for text not prepared, and prompts are built with {@link LineTokenizer.prepared}.
   */
  tokenizeMany?(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/**
 * Rounds of {@link LineTokenizer.prepared}. A line not tokenized yet stands in as one token, which
 * no line has fewer of: the first build then reaches at least as far as the exact one will (a
 * budget filled by whole lines takes more of them), so it asks for every line the exact build
 * reads, and the second build is exact. A line cut to fit the budget may take a third round.
 */
const MAX_PREPARE_ROUNDS = 4;

/**
 * A prompt has a few hundred distinct lines (prefix, suffix, ten chunk windows); keeping the
 * lines of the last few dozen prompts is what KV-cache reuse needs. A larger cache churned by
 * eviction fragments the server's old-generation heap (docs/reliability.md).
 */
const DEFAULT_CACHED_LINES = 8_192;

export class LineTokenizer {
  private readonly cache: LRUCache<string, number[]>;
  /** While {@link prepared} builds: pieces not cached yet, answered as one token each. */
  private missing?: Set<string>;

  constructor(private readonly tokenizer: Tokenizer, cachedLines = DEFAULT_CACHED_LINES) {
    this.cache = new LRUCache({ max: cachedLines });
  }

  /** Ids of one piece of text that contains at most one trailing '\n'. */
  piece(text: string): number[] {
    if (text.length === 0) return [];
    let ids = this.cache.get(text);
    if (!ids && this.missing) {
      this.missing.add(text);
      return [0];
    }
    if (!ids) {
      ids = this.tokenizer.tokenize(text);
      // The line is usually a slice of a whole document; a cached slice would keep it alive.
      this.cache.set(detachedCopy(text), ids);
    }
    return ids;
  }

  /**
   * Run `build` (prompt planning, which tokenizes through this) so that every piece it reads is
   * tokenized exactly. A synchronous tokenizer needs nothing: `build` runs once. One that
   * tokenizes elsewhere gets the pieces `build` asked for in one batch, and `build` runs again,
   * until it asks for nothing new.
   */
  async prepared<T>(build: () => T, signal?: AbortSignal): Promise<T> {
    const tokenizeMany = this.tokenizer.tokenizeMany?.bind(this.tokenizer);
    if (!tokenizeMany) return build();
    for (let round = 1; ; round++) {
      const missing = new Set<string>();
      this.missing = missing;
      let result: T;
      try {
        result = build();
      } finally {
        this.missing = undefined;
      }
      if (missing.size === 0) return result;
      if (round === MAX_PREPARE_ROUNDS) throw new Error(`a prompt still needed ${missing.size} untokenized lines after ${round} rounds`);
      const pieces = [...missing];
      const ids = await tokenizeMany(pieces, signal);
      pieces.forEach((piece, i) => this.cache.set(detachedCopy(piece), ids[i]!));
    }
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
