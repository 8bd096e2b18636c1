/** Retrieval's inputs and outputs. */
import type { Chunk, FileIndex } from '../indexing/types.js';

/** Which source proposed a candidate: lexical windows (§4.1) or Rivet's structural links (§3.3). */
export type CandidateSource = 'jaccard' | 'bm25' | 'definition' | 'import' | 'usage';

/** A retrieved cross-file candidate, ready to be packed into a prompt. */
export interface Candidate {
  chunk: Chunk;
  text: string;
  sources: CandidateSource[];
  /** Fused score; higher is better. Candidates are ordered by it (ties broken by path, line). */
  score: number;
  /**
   * The reduced form for tight budgets (Rivet §3.4: reduce to signatures before dropping):
   * a definition's signature and first docstring line.
   */
  signature?: string;
  /** For an import outline: the definitions it lists (where each one starts). */
  lists?: { relPath: string; startLine: number }[];
}

/** Where the cursor is, as retrieval sees it. */
export interface RetrievalQuery {
  /** The document's index entry when it lies inside a workspace root (open buffer content). */
  file?: FileIndex;
  /** Workspace-relative path of the document, if inside a root. */
  relPath?: string;
  /** The keywords of the document's language, left out of its identifier tokens (none when unknown). */
  keywords?: ReadonlySet<string>;
  /** Lines of the prefix; the last one is the cursor line up to the cursor. */
  prefixLines: string[];
  /** Text after the cursor (only its first lines are used). */
  suffixText: string;
  cursorLine: number;
  /**
   * Lines the prompt shows above and below the cursor line (prompt/sequences.ts `shownLinesOf`):
   * chunks of the document within them are left out, as within `windowLines` of the cursor.
   */
  shownLines?: { above: number; below: number };
}

/** Retrieval settings (RepoShapley A.4: window w, stride s, K). */
export interface RetrievalOptions {
  topK: number;
  windowLines: number;
}
