/**
 * Identifier tokenization shared by the Jaccard and BM25 retrievers.
 * RepoShapley §4.1 retrieves with Jaccard similarity over token sets; we use identifier tokens
 * (the language's keywords removed: every window has them, so they only add noise to both scores).
 */
import { languageOfPath } from '../languages/registry.js';

const IDENTIFIER = /[\p{L}_][\p{L}\p{N}_]*/gu;
/** Most code is ASCII; this regex is twice as fast as the Unicode one and agrees with it there. */
const ASCII_IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;
const NON_ASCII = /[^\x00-\x7F]/;

const NO_KEYWORDS: ReadonlySet<string> = new Set();

/** The keywords of a file's language (none for a file of no registered language). */
export function keywordsOf(relPath: string | undefined): ReadonlySet<string> {
  return (relPath === undefined ? undefined : languageOfPath(relPath)?.symbols.keywords) ?? NO_KEYWORDS;
}

/** Identifier tokens of `text` in order of appearance, `keywords` excluded. */
export function identifierTokens(text: string, keywords: ReadonlySet<string>): string[] {
  const matches = NON_ASCII.test(text) ? Array.from(text.matchAll(IDENTIFIER), (m) => m[0]) : text.match(ASCII_IDENTIFIER) ?? [];
  // Keywords are dropped in place: a line's tokenization is the index's most frequent allocation.
  let kept = 0;
  for (const token of matches) if (!keywords.has(token)) matches[kept++] = token;
  matches.length = kept;
  return matches;
}

/** Term frequencies of the identifier tokens of `text`. */
export function termFrequencies(text: string, keywords: ReadonlySet<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of identifierTokens(text, keywords)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** Jaccard similarity |A ∩ B| / |A ∪ B| of two sets given their sizes and intersection size. */
export function jaccardFromCounts(intersection: number, sizeA: number, sizeB: number): number {
  const union = sizeA + sizeB - intersection;
  return union === 0 ? 0 : intersection / union;
}
