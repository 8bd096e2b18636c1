/**
 * The completion cache: the one cache of finished completions, in front of the engine.
 * A key is the document URI, the text around the cursor (bounded prefix and suffix), the index
 * version and the effective settings, hashed; any edit, re-index or settings change misses.
 * A hit answers without calling the engine (and without the debounce).
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CompletionSettings } from '../../../shared/settings.js';

/** What identifies one completion. */
export interface CacheKeyInput {
  uri: string;
  prefix: string;
  suffix: string;
  indexVersion: number;
  settings: CompletionSettings;
  /** Line or block completion as the client asked; different answers for one cursor. */
  mode?: string;
}

/** A cached completion. */
export interface CachedCompletion {
  text: string;
  traceId: string;
}

/** Characters of prefix / suffix around the cursor that key the completion cache. */
export const CACHE_PREFIX_CHARS = 2_000;
export const CACHE_SUFFIX_CHARS = 500;

/** Default number of completions kept. */
export const DEFAULT_CACHE_ENTRIES = 500;

/** Settings serialized with sorted keys, so equal settings hash equally. */
function stableStringify(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(',')}}`;
}

/** The cache key of a completion: a SHA-1 over its length-prefixed parts (no separator ambiguity). */
export function completionCacheKey(input: CacheKeyInput): string {
  const hash = createHash('sha1');
  for (const part of [input.uri, input.prefix, input.suffix, String(input.indexVersion), stableStringify(input.settings), input.mode ?? 'auto']) {
    hash.update(`${part.length}:`);
    hash.update(part);
  }
  return hash.digest('hex');
}

/** An LRU of finished completions by {@link completionCacheKey}. */
export class CompletionCache {
  private readonly entries: LRUCache<string, CachedCompletion>;

  constructor(maxEntries: number = DEFAULT_CACHE_ENTRIES) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(key: string): CachedCompletion | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: CachedCompletion): void {
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
