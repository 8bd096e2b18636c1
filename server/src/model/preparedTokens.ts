/**
 * The tokenizations an adapter that tokenizes in another process (a model host, a model server)
 * got back from its `tokenizeMany`, so that its synchronous `tokenize()` can answer them: the
 * prompt module prepares every prompt's lines that way first (prompt/lineTokenizer.ts `prepared`).
 */
import { LRUCache } from 'lru-cache';
import { UntokenizedTextError } from './completionModel.js';

/** Texts remembered; LineTokenizer keeps its own per-line cache besides. */
const REMEMBERED_TEXTS = 16_384;

export class PreparedTokens {
  private readonly remembered = new LRUCache<string, number[]>({ max: REMEMBERED_TEXTS });

  /** Keeps `ids[i]` as the tokenization of `texts[i]`. */
  remember(texts: readonly string[], ids: readonly number[][]): void {
    texts.forEach((text, i) => this.remembered.set(text, ids[i]!));
  }

  /** The ids of a text remembered before; anything else throws {@link UntokenizedTextError}. */
  lookup(text: string): number[] {
    if (text.length === 0) return [];
    const ids = this.remembered.get(text);
    if (!ids) throw new UntokenizedTextError(text);
    return [...ids];
  }
}
