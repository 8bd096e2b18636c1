/**
 * Inverted index over retrieval windows for Jaccard (RepoShapley §4.1) and BM25 scoring.
 *
 * Built for keystrokes: it follows the workspace index's change events, and a changed file
 * keeps the ids of its windows whose text did not change, so typing inside a line touches two
 * windows. Windows that disappear are marked dead and skipped (and dropped from the posting
 * lists a query walks); the lists are rebuilt only when dead entries outnumber live ones, and the
 * rebuild also forgets tokens no live window has: typing interns every partial identifier
 * (`g`, `ge`, `get`...), which would otherwise pile up for as long as the server runs.
 * Postings are typed arrays and scores accumulate in typed arrays: a query costs
 * O(postings of its tokens), with no allocation per window.
 */
import type { Chunk, FileChange, FileIndex, IndexView } from '../indexing/types.js';
import { fnv1a } from '../util/hashing.js';
import { Postings } from './postings.js';
import { identifierTokens, keywordsOf, termFrequencies } from './tokens.js';

/** BM25 parameters (the usual Okapi defaults). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** A token in more than this share of windows only scores windows found by rarer tokens. */
const COMMON_TOKEN_SHARE = 0.05;
/** Dead posting entries tolerated (beyond the live ones) before the lists are rebuilt. */
const DEFAULT_REBUILD_SLACK = 100_000;

export interface LexicalIndexOptions {
  /** Rebuild when dead entries exceed max(this, live entries); default 100,000. */
  rebuildSlack?: number;
}

/** A window's score under one scorer. */
export interface ScoredWindow {
  chunk: Chunk;
  score: number;
}

/** The best windows for a query under each lexical scorer, best first (ties: path, line). */
export interface LexicalRankings {
  jaccard: ScoredWindow[];
  bm25: ScoredWindow[];
}

interface LineTokens {
  /** Interned token ids, in order. */
  tokens: Int32Array;
  hash: number;
}

interface WindowTokens {
  tokens: number[];
  tfs: number[];
  length: number;
}

export class LexicalIndex {
  private tokenIds = new Map<string, number>();
  private postings: Postings[] = [];
  /** By window id; undefined once the window is dead. */
  private chunks: (Chunk | undefined)[] = [];
  private tokensOf: (WindowTokens | undefined)[] = [];
  /** relPath -> window content hash -> window id, to keep the ids of unchanged windows. */
  private readonly windowsByFile = new Map<string, Map<number, number>>();
  /** Line text -> tokens and hash, for open buffers only. */
  private readonly bufferLines = new Map<string, Map<string, LineTokens>>();
  private live = 0;
  private totalLength = 0;
  private liveEntries = 0;
  private deadEntries = 0;
  private bm25 = new Float64Array(0);
  private shared = new Int32Array(0);
  /** Token count of each window (BM25 document length), by id. */
  private lengths = new Float64Array(0);
  /** Per-token counters reused by countTokens. */
  private scratch = new Int32Array(0);

  private readonly rebuildSlack: number;

  constructor(private readonly view: IndexView, options: LexicalIndexOptions = {}) {
    this.rebuildSlack = options.rebuildSlack ?? DEFAULT_REBUILD_SLACK;
  }

  get windowCount(): number {
    return this.live;
  }

  /** Distinct tokens interned (those of live windows, plus dead ones until the next rebuild). */
  get tokenCount(): number {
    return this.tokenIds.size;
  }

  /** Apply index changes (wire this to the workspace index's change event). */
  applyChanges(changes: readonly FileChange[]): void {
    for (const change of changes) this.updateFile(change.relPath, change.after);
    if (this.deadEntries > Math.max(this.rebuildSlack, this.liveEntries)) this.rebuildPostings();
  }

  /** Index every file currently in the view. */
  rebuild(): void {
    for (const relPath of [...this.windowsByFile.keys()]) this.updateFile(relPath, undefined);
    for (const file of this.view.files()) this.updateFile(file.relPath, file);
    this.rebuildPostings();
  }

  /** Top `depth` windows by Jaccard and by BM25 for `queryText`, skipping excluded ones. */
  rank(queryText: string, depth: number, exclude: (chunk: Chunk) => boolean, keywords: ReadonlySet<string>): LexicalRankings {
    const queryTokens = [...termFrequencies(queryText, keywords).keys()];
    const query = queryTokens.flatMap((t) => {
      const id = this.tokenIds.get(t);
      return id === undefined ? [] : [id];
    });
    const querySize = queryTokens.length;
    const touched = this.accumulate(query, depth);
    const jaccard = new TopWindows(depth);
    const bm25 = new TopWindows(depth);
    for (const id of touched) {
      const chunk = this.chunks[id]!;
      const shared = this.shared[id]!;
      const score = this.bm25[id]!;
      this.shared[id] = 0;
      this.bm25[id] = 0;
      if (exclude(chunk)) continue;
      const union = querySize + this.tokensOf[id]!.tokens.length - shared;
      jaccard.offer(chunk, union === 0 ? 0 : shared / union);
      bm25.offer(chunk, score);
    }
    return { jaccard: jaccard.sorted(), bm25: bm25.sorted() };
  }

  /**
   * Walks the postings of the query's tokens (skipping dead windows), accumulating both scores.
   * Candidates come from the query's rarer tokens; tokens in more than COMMON_TOKEN_SHARE of all
   * windows (`self`, `i`) only add to windows already found, since a window that shares nothing
   * but them cannot rank. If the rare tokens find fewer than `depth` windows, common tokens
   * propose candidates too, so small workspaces still get full rankings.
   */
  private accumulate(queryTokens: number[], depth: number): number[] {
    const touched: number[] = [];
    const commonAt = Math.max(1, this.live * COMMON_TOKEN_SHARE);
    const rare = queryTokens.filter((t) => this.postings[t]!.live <= commonAt);
    const common = queryTokens.filter((t) => this.postings[t]!.live > commonAt);
    for (const token of rare) this.addPosting(token, touched, true);
    const proposeFromCommon = touched.length < depth;
    for (const token of common) this.addPosting(token, touched, proposeFromCommon);
    return touched;
  }

  private addPosting(token: number, touched: number[], mayPropose: boolean): void {
    const { shared, bm25, lengths, chunks } = this;
    const posting = this.postings[token]!;
    const avgLength = this.live === 0 ? 1 : this.totalLength / this.live;
    const idf = Math.log(1 + (this.live - posting.live + 0.5) / (posting.live + 0.5));
    const lengthWeight = (BM25_K1 * BM25_B) / avgLength;
    const base = BM25_K1 * (1 - BM25_B);
    const { ids, tfs, size } = posting;
    for (let i = 0; i < size; i++) {
      const id = ids[i]!;
      if (shared[id] === 0) {
        if (!mayPropose || chunks[id] === undefined) continue;
        touched.push(id);
      }
      const tf = tfs[i]!;
      shared[id]! += 1;
      bm25[id]! += (idf * tf * (BM25_K1 + 1)) / (tf + base + lengthWeight * lengths[id]!);
    }
  }

  private updateFile(relPath: string, file: FileIndex | undefined): void {
    const previous = this.windowsByFile.get(relPath) ?? new Map<number, number>();
    const next = new Map<number, number>();
    const lines = file ? this.tokenizeLines(relPath, file) : [];
    for (const chunk of file?.windows ?? []) {
      const key = windowKey(lines, chunk);
      if (next.has(key)) continue;
      const reused = previous.get(key);
      if (reused !== undefined) {
        previous.delete(key);
        this.chunks[reused] = chunk;
        next.set(key, reused);
        continue;
      }
      const id = this.addWindow(chunk, lines);
      if (id !== undefined) next.set(key, id);
    }
    for (const id of previous.values()) this.killWindow(id);
    if (next.size > 0) this.windowsByFile.set(relPath, next);
    else this.windowsByFile.delete(relPath);
  }

  /**
   * Tokens and hash of every line. Open buffers are re-indexed on each keystroke, so their lines
   * are cached by text: an edit re-tokenizes only the lines it changed.
   */
  private tokenizeLines(relPath: string, file: FileIndex): LineTokens[] {
    const cache = file.fromBuffer ? this.bufferLines.get(relPath) : undefined;
    const keywords = keywordsOf(relPath);
    const lines = file.lines.map((text) => cache?.get(text) ?? { tokens: this.internLine(text, keywords), hash: fnv1a(text) });
    if (file.fromBuffer) this.bufferLines.set(relPath, new Map(file.lines.map((text, i) => [text, lines[i]!])));
    else this.bufferLines.delete(relPath);
    return lines;
  }

  /** The ids of a line's identifier tokens (a plain loop: `Int32Array.from` with a map function allocates an iterator per line). */
  private internLine(text: string, keywords: ReadonlySet<string>): Int32Array {
    const tokens = identifierTokens(text, keywords);
    const ids = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) ids[i] = this.internToken(tokens[i]!);
    return ids;
  }

  private addWindow(chunk: Chunk, lines: readonly LineTokens[]): number | undefined {
    const { tokens, tfs, length } = this.countTokens(chunk, lines);
    if (tokens.length === 0) return undefined;
    const id = this.chunks.length;
    tokens.forEach((token, i) => this.postings[token]!.push(id, tfs[i]!));
    this.chunks.push(chunk);
    this.tokensOf.push({ tokens, tfs, length });
    this.live++;
    this.totalLength += length;
    this.liveEntries += tokens.length;
    this.ensureAccumulators();
    this.lengths[id] = length;
    return id;
  }

  /** Distinct token ids of a window's lines with their counts (a typed scratch array, no Map). */
  private countTokens(chunk: Chunk, lines: readonly LineTokens[]): WindowTokens {
    if (this.scratch.length < this.postings.length) this.scratch = new Int32Array(this.postings.length * 2);
    const scratch = this.scratch;
    const distinct: number[] = [];
    let length = 0;
    for (let line = chunk.startLine; line < chunk.endLine; line++) {
      // An index loop: `for…of` over an Int32Array allocates an iterator per line of every window.
      const tokens = lines[line]!.tokens;
      for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i]!;
        if (scratch[token] === 0) distinct.push(token);
        scratch[token]! += 1;
      }
      length += tokens.length;
    }
    const tfs = distinct.map((token) => scratch[token]!);
    for (const token of distinct) scratch[token] = 0;
    return { tokens: distinct, tfs, length };
  }

  private killWindow(id: number): void {
    const tokens = this.tokensOf[id];
    if (!tokens || !this.chunks[id]) return;
    this.chunks[id] = undefined;
    this.tokensOf[id] = undefined; // Queries never read a dead window's tokens.
    for (const token of tokens.tokens) this.postings[token]!.live--;
    this.live--;
    this.totalLength -= tokens.length;
    this.liveEntries -= tokens.tokens.length;
    this.deadEntries += tokens.tokens.length;
  }

  private internToken(token: string): number {
    let id = this.tokenIds.get(token);
    if (id === undefined) {
      id = this.postings.length;
      this.tokenIds.set(token, id);
      this.postings.push(new Postings());
    }
    return id;
  }

  /** Renumber live windows and their tokens densely and rebuild every posting list. */
  private rebuildPostings(): void {
    this.forgetDeadTokens();
    const chunks: Chunk[] = [];
    const tokensOf: WindowTokens[] = [];
    const newId = new Map<number, number>();
    this.chunks.forEach((chunk, id) => {
      if (!chunk) return;
      newId.set(id, chunks.length);
      chunks.push(chunk);
      tokensOf.push(this.tokensOf[id]!);
    });
    this.postings = Array.from({ length: this.tokenIds.size }, () => new Postings());
    tokensOf.forEach((window, id) => window.tokens.forEach((token, i) => this.postings[token]!.push(id, window.tfs[i]!)));
    for (const windows of this.windowsByFile.values()) {
      for (const [text, id] of windows) windows.set(text, newId.get(id)!);
    }
    this.chunks = chunks;
    this.tokensOf = tokensOf;
    this.deadEntries = 0;
    this.bm25 = new Float64Array(0);
    this.shared = new Int32Array(0);
    this.lengths = new Float64Array(0);
    this.ensureAccumulators();
    tokensOf.forEach((window, id) => (this.lengths[id] = window.length));
  }

  /**
   * Drop tokens that no live window has and renumber the rest densely, in the live windows and
   * in the buffer line caches (a cached line with a dropped token is tokenized again when seen).
   */
  private forgetDeadTokens(): void {
    const renumbered = new Int32Array(this.postings.length).fill(-1);
    const tokenIds = new Map<string, number>();
    for (const [token, id] of this.tokenIds) {
      if (this.postings[id]!.live === 0) continue;
      renumbered[id] = tokenIds.size;
      tokenIds.set(token, tokenIds.size);
    }
    if (tokenIds.size === this.tokenIds.size) return;
    for (const window of this.tokensOf) {
      if (!window) continue;
      for (let i = 0; i < window.tokens.length; i++) window.tokens[i] = renumbered[window.tokens[i]!]!;
    }
    for (const lines of this.bufferLines.values()) {
      for (const [text, line] of lines) {
        const tokens = line.tokens.map((id) => renumbered[id]!);
        if (tokens.includes(-1)) lines.delete(text);
        else line.tokens = tokens;
      }
    }
    this.tokenIds = tokenIds;
    this.scratch = new Int32Array(0);
  }

  private ensureAccumulators(): void {
    if (this.shared.length >= this.chunks.length) return;
    const capacity = Math.max(1024, this.chunks.length * 2);
    const shared = new Int32Array(capacity);
    shared.set(this.shared);
    this.shared = shared;
    const bm25 = new Float64Array(capacity);
    bm25.set(this.bm25);
    this.bm25 = bm25;
    const lengths = new Float64Array(capacity);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}

/** Keeps the best `depth` windows offered, ordered by score then path and line. */
class TopWindows {
  private readonly best: ScoredWindow[] = [];

  constructor(private readonly depth: number) {}

  offer(chunk: Chunk, score: number): void {
    if (score <= 0 || this.depth <= 0) return;
    const best = this.best;
    if (best.length === this.depth && compare(best[best.length - 1]!, chunk, score) <= 0) return;
    let at = best.length;
    while (at > 0 && compare(best[at - 1]!, chunk, score) > 0) at--;
    best.splice(at, 0, { chunk, score });
    if (best.length > this.depth) best.pop();
  }

  sorted(): ScoredWindow[] {
    return this.best;
  }
}

/** >0 when (chunk, score) ranks before `window`. */
function compare(window: ScoredWindow, chunk: Chunk, score: number): number {
  if (score !== window.score) return score > window.score ? 1 : -1;
  const a = chunk.relPath;
  const b = window.chunk.relPath;
  if (a !== b) return a < b ? 1 : -1;
  return window.chunk.startLine - chunk.startLine;
}

/**
 * A 52-bit key for a window's content from its lines' hashes (two independent mixes), so a
 * window's text need not be kept to recognise it after an edit. A collision would need two
 * different windows of one file to agree on 52 bits.
 */
function windowKey(lines: readonly LineTokens[], chunk: Chunk): number {
  let a = 0x9e3779b9;
  let b = chunk.endLine - chunk.startLine;
  for (let line = chunk.startLine; line < chunk.endLine; line++) {
    const h = lines[line]!.hash;
    a = Math.imul(a ^ h, 0x85ebca6b) >>> 0;
    b = (Math.imul(b, 31) + Math.imul(h, 0xc2b2ae35)) >>> 0;
  }
  return (a % 0x100000) * 0x100000000 + b;
}
