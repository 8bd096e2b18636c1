/** A growable posting list: window ids with their term frequencies, in typed arrays. */
export class Postings {
  ids = new Int32Array(4);
  tfs = new Uint16Array(4);
  size = 0;
  /** Entries whose window is still alive: the document frequency BM25's idf needs. */
  live = 0;

  push(id: number, tf: number): void {
    if (this.size === this.ids.length) {
      const ids = new Int32Array(this.size * 2);
      ids.set(this.ids);
      this.ids = ids;
      const tfs = new Uint16Array(this.size * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.ids[this.size] = id;
    this.tfs[this.size] = Math.min(tf, 65_535);
    this.size++;
    this.live++;
  }
}
