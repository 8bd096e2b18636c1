/**
 * Typed-through reuse (issue 19): when the user types the next characters of the ghost text just
 * shown, the rest of that completion is the answer, with no model call, as Copilot does. The
 * index version is not part of the match: typing re-indexes the buffer, and what was typed is
 * exactly what the completion predicted.
 */
import { CACHE_PREFIX_CHARS, type CachedCompletion } from './cache.js';

interface Shown {
  /** The cursor context the completion was made for (bounded as completeAtCursor.ts bounds it). */
  prefix: string;
  suffix: string;
  /** Settings and mode of the request (a completion made for others is not reused). */
  requestKey: string;
  completion: CachedCompletion;
}

/** The last completion answered per document, and its reuse while the user types it. */
export class TypedThrough {
  private readonly shown = new Map<string, Shown>();

  remember(uri: string, context: { prefix: string; suffix: string }, requestKey: string, completion: CachedCompletion): void {
    if (completion.text.length > 1) this.shown.set(uri, { ...context, requestKey, completion });
  }

  /**
   * The rest of the last completion when the cursor context is its own context plus a non-empty
   * proper beginning of its text (the suffix unchanged), else undefined.
   */
  match(uri: string, context: { prefix: string; suffix: string }, requestKey: string): CachedCompletion | undefined {
    const shown = this.shown.get(uri);
    if (!shown || shown.requestKey !== requestKey || shown.suffix !== context.suffix) return undefined;
    const { text } = shown.completion;
    for (let typed = 1; typed < text.length; typed++) {
      const start = text.slice(0, typed);
      if (!context.prefix.endsWith(start)) continue;
      if ((shown.prefix + start).slice(-CACHE_PREFIX_CHARS) === context.prefix) {
        return { text: text.slice(typed), traceId: shown.completion.traceId };
      }
    }
    return undefined;
  }

  forget(uri: string): void {
    this.shown.delete(uri);
  }

  clear(): void {
    this.shown.clear();
  }
}
