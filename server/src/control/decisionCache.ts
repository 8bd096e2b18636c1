/**
 * What is kept while the user types on one line (issue 19): P(<NEED>) is reused while the cursor
 * stays on the line, and the P(<KEEP>)s while, in addition, the packed candidates are the same.
 * Moving to another line, another model, or other candidates decides afresh. Typing changes the
 * in-file context only a little, and a decision that flips with every keystroke would make ghost
 * text flicker between two kinds of completion.
 *
 * The line also keeps the candidates retrieved on it (the pipeline decides when they still hold,
 * completion/pipeline.ts): the chunks come first in the repository prompt, so a candidate set
 * that changes with a keystroke makes the model read the whole prompt again.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PackedChunk } from '../prompt/budget.js';
import type { Candidate } from '../retrieval/types.js';

/** Candidates retrieved on a line, and what they were retrieved for. */
export interface LineRetrieval {
  /** The cursor line's text before the cursor when they were retrieved. */
  linePrefix: string;
  candidates: Candidate[];
  packed: PackedChunk[];
  /** Index versions of the other files the candidates come from, when they were retrieved. */
  fileVersions: ReadonlyMap<string, number>;
  /** The index's file-set version when they were retrieved: a file added or removed since may change them. */
  fileSetVersion: number;
  /** The line they were retrieved on (0-based), which a nearby line's reuse is measured from. */
  line?: number;
}

/** The decisions of one document line under one model. */
export interface ScopedDecisions {
  need(): number | undefined;
  rememberNeed(probability: number): void;
  keep(packed: readonly PackedChunk[]): number[] | undefined;
  rememberKeep(packed: readonly PackedChunk[], probabilities: readonly number[]): void;
  /** The candidates last retrieved on this line, if any. */
  retrieval(): LineRetrieval | undefined;
  rememberRetrieval(retrieval: LineRetrieval): void;
  /** The candidates of the line the cursor came from, when that line is near (see {@link DecisionCache.scope}). */
  nearbyRetrieval(): LineRetrieval | undefined;
}

interface LineDecisions {
  line: number;
  model: string;
  need?: number;
  keepByCandidates: Map<string, number[]>;
  retrieval?: LineRetrieval;
  /** The previous line's retrieval, when the cursor came from at most `nearLines` away. */
  nearby?: LineRetrieval;
}

/** Documents whose last line's decisions are kept. */
const DOCUMENTS = 64;

export class DecisionCache {
  private readonly byDocument = new LRUCache<string, LineDecisions>({ max: DOCUMENTS });

  /**
   * What is kept for `uri` at `line` under `model` (a new line or model starts empty). A new line
   * at most `nearLines` from the last one under the same model also offers that line's candidates
   * ({@link ScopedDecisions.nearbyRetrieval}): the setting keepCandidatesNearLines.
   */
  scope(uri: string, line: number, model: string, nearLines = 0): ScopedDecisions {
    let entry = this.byDocument.get(uri);
    if (!entry || entry.line !== line || entry.model !== model) {
      const last = entry?.model === model ? entry.retrieval ?? entry.nearby : undefined;
      // Measured from where they were retrieved, so candidates do not drift along line by line.
      const near = last && Math.abs((last.line ?? entry!.line) - line) <= nearLines ? last : undefined;
      entry = { line, model, keepByCandidates: new Map(), ...(near ? { nearby: near } : {}) };
      this.byDocument.set(uri, entry);
    }
    const current = entry;
    return {
      need: () => current.need,
      rememberNeed: (probability) => void (current.need = probability),
      keep: (packed) => current.keepByCandidates.get(candidatesKey(packed)),
      rememberKeep: (packed, probabilities) => {
        // One candidate set per line is what typing produces; keep the latest only.
        current.keepByCandidates.clear();
        current.keepByCandidates.set(candidatesKey(packed), [...probabilities]);
      },
      retrieval: () => current.retrieval,
      rememberRetrieval: (retrieval) => void (current.retrieval = retrieval),
      nearbyRetrieval: () => current.nearby,
    };
  }

  clear(): void {
    this.byDocument.clear();
  }
}

/** The packed candidates' identity: their exact text, in order. */
function candidatesKey(packed: readonly PackedChunk[]): string {
  const hash = createHash('sha1');
  for (const chunk of packed) hash.update(`${chunk.text.length}:${chunk.text}`);
  return hash.digest('hex');
}
