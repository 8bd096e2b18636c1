/**
 * A posting list: window ids with their term frequencies. Plain arrays of small integers
 * (V8 stores them unboxed) rather than typed arrays: most tokens are rare, and a typed array's
 * fixed overhead per list would cost more memory than the entries themselves.
 */
export class Postings {
  readonly ids: number[] = [];
  readonly tfs: number[] = [];
  /** Entries whose window is still alive: the document frequency BM25's idf needs. */
  live = 0;

  get size(): number {
    return this.ids.length;
  }

  push(id: number, tf: number): void {
    this.ids.push(id);
    this.tfs.push(tf);
    this.live++;
  }
}
