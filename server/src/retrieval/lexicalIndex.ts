/**
 * Inverted index over retrieval windows for Jaccard (RepoShapley §4.1) and BM25 scoring.
 * It listens to the workspace index and updates only the windows of the file that changed,
 * so a keystroke costs O(size of that file), never O(workspace).
 */
import type { Chunk, FileChange, FileIndex, IndexView } from '../indexing/types.js';
import { termFrequencies } from './tokens.js';

/** BM25 parameters (the usual Okapi defaults). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

interface WindowEntry {
  chunk: Chunk;
  /** Distinct tokens, kept so the window can be removed after its file's text changed. */
  tokens: string[];
  /** Number of distinct identifier tokens (|W| for Jaccard). */
  distinct: number;
  /** Total identifier tokens (document length for BM25). */
  length: number;
}

/** A window's scores for one query. */
export interface WindowScore {
  chunk: Chunk;
  jaccard: number;
  bm25: number;
}

export class LexicalIndex {
  private readonly windows: (WindowEntry | undefined)[] = [];
  private readonly freeIds: number[] = [];
  private readonly idsByFile = new Map<string, number[]>();
  private readonly postings = new Map<string, Map<number, number>>();
  private totalLength = 0;
  private liveWindows = 0;

  constructor(private readonly view: IndexView) {}

  /** Apply index changes (wire this to the workspace index's change event). */
  applyChanges(changes: readonly FileChange[]): void {
    for (const change of changes) {
      this.removeFile(change.relPath);
      if (change.after) this.addFile(change.after);
    }
  }

  /** Index every file currently in the view (used after a full index). */
  rebuild(): void {
    for (const relPath of [...this.idsByFile.keys()]) this.removeFile(relPath);
    for (const file of this.view.files()) this.addFile(file);
  }

  get windowCount(): number {
    return this.liveWindows;
  }

  /**
   * Score every window sharing at least one identifier with the query.
   * `exclude` filters windows (e.g. those overlapping the cursor's own region).
   */
  score(queryText: string, exclude: (chunk: Chunk) => boolean): WindowScore[] {
    const query = termFrequencies(queryText);
    const intersections = new Map<number, number>();
    const bm25 = new Map<number, number>();
    const avgLength = this.liveWindows === 0 ? 1 : this.totalLength / this.liveWindows;
    for (const token of query.keys()) {
      const posting = this.postings.get(token);
      if (!posting) continue;
      const idf = Math.log(1 + (this.liveWindows - posting.size + 0.5) / (posting.size + 0.5));
      for (const [id, tf] of posting) {
        const entry = this.windows[id]!;
        intersections.set(id, (intersections.get(id) ?? 0) + 1);
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * entry.length) / avgLength);
        bm25.set(id, (bm25.get(id) ?? 0) + (idf * tf * (BM25_K1 + 1)) / norm);
      }
    }
    return this.collectScores(intersections, bm25, query.size, exclude);
  }

  private collectScores(
    intersections: Map<number, number>, bm25: Map<number, number>, querySize: number,
    exclude: (chunk: Chunk) => boolean,
  ): WindowScore[] {
    const scores: WindowScore[] = [];
    for (const [id, shared] of intersections) {
      const entry = this.windows[id]!;
      if (exclude(entry.chunk)) continue;
      const union = querySize + entry.distinct - shared;
      scores.push({ chunk: entry.chunk, jaccard: union === 0 ? 0 : shared / union, bm25: bm25.get(id) ?? 0 });
    }
    return scores;
  }

  private addFile(file: FileIndex): void {
    const ids: number[] = [];
    for (const chunk of file.windows) {
      const tf = termFrequencies(file.lines.slice(chunk.startLine, chunk.endLine).join('\n'));
      if (tf.size === 0) continue;
      const id = this.freeIds.pop() ?? this.windows.length;
      let length = 0;
      for (const [token, count] of tf) {
        length += count;
        let posting = this.postings.get(token);
        if (!posting) this.postings.set(token, (posting = new Map()));
        posting.set(id, count);
      }
      this.windows[id] = { chunk, tokens: [...tf.keys()], distinct: tf.size, length };
      this.totalLength += length;
      this.liveWindows++;
      ids.push(id);
    }
    this.idsByFile.set(file.relPath, ids);
  }

  private removeFile(relPath: string): void {
    const ids = this.idsByFile.get(relPath);
    if (!ids) return;
    for (const id of ids) this.removeWindow(id);
    this.idsByFile.delete(relPath);
  }

  private removeWindow(id: number): void {
    const entry = this.windows[id];
    if (!entry) return;
    for (const token of entry.tokens) {
      const posting = this.postings.get(token);
      posting?.delete(id);
      if (posting?.size === 0) this.postings.delete(token);
    }
    this.totalLength -= entry.length;
    this.liveWindows--;
    this.windows[id] = undefined;
    this.freeIds.push(id);
  }
}
