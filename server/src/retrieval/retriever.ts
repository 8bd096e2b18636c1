/**
 * Candidate retrieval: lexical windows (Jaccard, the paper's retriever, and BM25) fused with
 * Rivet's structural links by weighted reciprocal-rank fusion, deduplicated, top-K.
 * Query = the last w lines of the prefix (RepoShapley A.4, Q = Xp[-w:]).
 */
import type { Chunk, IndexView } from '../indexing/types.js';
import { keywordsOf } from './tokens.js';
import type { LexicalIndex, ScoredWindow } from './lexicalIndex.js';
import {
  definitionCandidates, importCandidates, importOutline, namesAroundCursor, usageCandidates, type RankedCandidate,
} from './structural.js';
import type { Candidate, CandidateSource, RetrievalOptions, RetrievalQuery } from './types.js';

/** Reciprocal-rank-fusion constant (Cormack et al.'s 60). */
const RRF_K = 60;

/** How much each source's ranking counts. Jaccard is the paper's retriever; definitions are Rivet's strongest evidence. */
const SOURCE_WEIGHTS: Record<CandidateSource, number> = {
  jaccard: 1.0, bm25: 0.8, definition: 1.2, import: 0.6, usage: 0.6,
};

/** How deep each source's ranking is read, as a multiple of K. */
const DEPTH_PER_K = 3;

/** The import outline's score: above any fused one (an RRF sum stays below Σ weights / (k + 1) ≈ 0.07). */
const OUTLINE_SCORE = 1;

/** Two chunks of one file sharing more than this fraction of the smaller are one candidate. */
const OVERLAP_MERGE_RATIO = 0.5;

export class Retriever {
  constructor(private readonly view: IndexView, private readonly lexical: LexicalIndex) {}

  /**
   * Top-K candidates for a cursor, best first, deterministic. The import outline, when the
   * document imports from the workspace, comes first and takes one of the K places: it is
   * small and outside fusion (its lines are the document's own import block, which would
   * merge it with windows of that region).
   */
  retrieve(query: RetrievalQuery, options: RetrievalOptions): Candidate[] {
    const outline = options.topK > 0 ? importOutline(this.view, query) : undefined;
    const fused = this.fused(query, options);
    if (!outline) return fused.slice(0, options.topK);
    const { source: _source, ...candidate } = outline;
    return [{ ...candidate, score: OUTLINE_SCORE }, ...fused.slice(0, options.topK - 1)];
  }

  private fused(query: RetrievalQuery, options: RetrievalOptions): Candidate[] {
    const isExcluded = cursorRegionFilter(query, options.windowLines);
    const depth = options.topK * DEPTH_PER_K;
    const queryText = query.prefixLines.slice(-options.windowLines).join('\n');
    const lexical = this.lexical.rank(queryText, depth, isExcluded, query.keywords ?? keywordsOf(query.relPath));
    const rankings: RankedCandidate[][] = [
      this.lexicalRanking(lexical.jaccard, 'jaccard'),
      this.lexicalRanking(lexical.bm25, 'bm25'),
      definitionCandidates(this.view, query, namesAroundCursor(query, options.windowLines), isExcluded).slice(0, depth),
      importCandidates(this.view, query, isExcluded).slice(0, depth),
      usageCandidates(this.view, query, isExcluded).slice(0, depth),
    ];
    return fuse(rankings);
  }

  private lexicalRanking(windows: ScoredWindow[], source: 'jaccard' | 'bm25'): RankedCandidate[] {
    return windows.map((w) => ({ chunk: w.chunk, text: this.view.chunkText(w.chunk), sources: [source], source }));
  }

}

/**
 * Excludes chunks of the document itself that overlap the cursor's region: the lines the prompt
 * shows around the cursor (`shownLines`), and at least [cursorLine - w, cursorLine + w). That text
 * is already in the prompt's prefix and suffix, and a prefix of 384 tokens often shows 40–60 lines.
 */
export function cursorRegionFilter(query: RetrievalQuery, windowLines: number): (chunk: Chunk) => boolean {
  const regionStart = query.cursorLine - Math.max(windowLines, query.shownLines?.above ?? 0);
  const regionEnd = query.cursorLine + Math.max(windowLines, (query.shownLines?.below ?? 0) + 1);
  return (chunk) => chunk.relPath === query.relPath && chunk.startLine < regionEnd && chunk.endLine > regionStart;
}

/** Weighted reciprocal-rank fusion with overlap merging; ordered by score, then path and line. */
export function fuse(rankings: RankedCandidate[][]): Candidate[] {
  const merged: Candidate[] = [];
  for (const ranking of rankings) {
    ranking.forEach((ranked, rank) => {
      const score = SOURCE_WEIGHTS[ranked.source] / (RRF_K + rank + 1);
      const twin = merged.find((c) => overlaps(c.chunk, ranked.chunk));
      if (twin) return absorb(twin, ranked, score);
      merged.push({ chunk: ranked.chunk, text: ranked.text, sources: [ranked.source], score, signature: ranked.signature });
    });
  }
  merged.sort((a, b) => b.score - a.score || compareChunks(a.chunk, b.chunk));
  return withoutRedundant(merged);
}

/**
 * Absorbing can turn a window into the definition it overlaps, which may now cover another
 * window already listed: keep only the better-ranked of such pairs so top-K stays diverse.
 */
function withoutRedundant(sorted: Candidate[]): Candidate[] {
  const kept: Candidate[] = [];
  for (const candidate of sorted) {
    if (!kept.some((k) => overlaps(k.chunk, candidate.chunk))) kept.push(candidate);
  }
  return kept;
}

function absorb(twin: Candidate, ranked: RankedCandidate, score: number): void {
  twin.score += score;
  if (!twin.sources.includes(ranked.source)) twin.sources.push(ranked.source);
  // A structural chunk (a whole definition) is a better unit than a window cutting through it.
  if (twin.chunk.kind === 'window' && ranked.chunk.kind !== 'window') {
    twin.chunk = ranked.chunk;
    twin.text = ranked.text;
    twin.signature = ranked.signature;
  }
}

function overlaps(a: Chunk, b: Chunk): boolean {
  if (a.relPath !== b.relPath) return false;
  const shared = Math.min(a.endLine, b.endLine) - Math.max(a.startLine, b.startLine);
  if (shared <= 0) return false;
  const smaller = Math.min(a.endLine - a.startLine, b.endLine - b.startLine);
  return shared / smaller > OVERLAP_MERGE_RATIO;
}

/** Deterministic tie-break: path, then start line, then end line. */
export function compareChunks(a: Chunk, b: Chunk): number {
  return a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : a.startLine - b.startLine || a.endLine - b.endLine;
}

