/**
 * The index's data model: what indexing/ produces and retrieval/ and prompt/ consume.
 * Lines are 0-based; ranges are half-open [startLine, endLine).
 */
import type { DefinitionKind, ImportRecord } from '../languages/language.js';

export type { DefinitionKind, ImportRecord } from '../languages/language.js';

/** Retrieval windows are the paper's unit (RepoShapley A.4); the rest are structural (Rivet §3.3). */
/** `outline` is made by retrieval, not the chunker: signatures of what the document imports. */
export type ChunkKind = 'window' | 'function' | 'method' | 'class' | 'imports' | 'outline';

/** A contiguous run of lines of one workspace file. Text is derived from the file, never stored twice. */
export interface Chunk {
  /** Deterministic id: `${relPath}:${kind}:${startLine}-${endLine}`. */
  id: string;
  relPath: string;
  kind: ChunkKind;
  startLine: number;
  endLine: number;
  /** Qualified name for function/method/class chunks (e.g. `Session.request`). */
  symbol?: string;
  /** For a split body, which part this is (1-based) of how many. */
  part?: { index: number; of: number };
}

/** A definition in the symbol graph. */
export interface Definition {
  /** Simple name, e.g. `request`. */
  name: string;
  /** Dotted name inside its module, e.g. `Session.request`. */
  qualifiedName: string;
  kind: DefinitionKind;
  relPath: string;
  startLine: number;
  endLine: number;
  /** Header text up to and including the colon, decorators excluded, whitespace collapsed. */
  signature: string;
  /** First non-empty line of the docstring, if any. */
  docstring?: string;
}

/** Everything the index knows about one file. */
export interface FileIndex {
  /** Path relative to its workspace root, with forward slashes. */
  relPath: string;
  absPath: string;
  /** Decoded text (bad UTF-8 replaced with U+FFFD). LF or CRLF kept as in the source. */
  text: string;
  /** Lines without their terminators. */
  lines: string[];
  /** Bumped every time the file is re-indexed. */
  version: number;
  /** True when the text came from an open editor buffer rather than disk. */
  fromBuffer: boolean;
  /** Sliding windows of w lines with stride s. */
  windows: Chunk[];
  /** Functions, methods, classes (long bodies split) and the import block. */
  structural: Chunk[];
  definitions: Definition[];
  imports: ImportRecord[];
  /** Identifier name -> 0-based lines where it is referenced (not defined). */
  references: Map<string, number[]>;
  /** Whether tree-sitter reported syntax errors (the file is still indexed). */
  hasSyntaxErrors: boolean;
  /** Why the file has no symbols, when reading them failed: it is then indexed as text only. */
  symbolError?: string;
}

/** A change to the set of indexed files, for listeners that keep derived structures (retrieval). */
export interface FileChange {
  relPath: string;
  /** The previous index of the file, if it was indexed. */
  before?: FileIndex;
  /** The new index of the file, if it is still indexed. */
  after?: FileIndex;
}

/** The read-only view of the workspace index that retrieval uses. */
export interface IndexView {
  /** Bumped on every change; part of the completion cache key. */
  readonly version: number;
  /**
   * Bumped whenever a file enters or leaves the index (not when one changes): what was retrieved
   * before may miss a new module, though every file it came from is unchanged.
   */
  readonly fileSetVersion: number;
  files(): Iterable<FileIndex>;
  file(relPath: string): FileIndex | undefined;
  /** Definitions with this simple name, in deterministic order (relPath, startLine). */
  definitionsNamed(name: string): readonly Definition[];
  /** Lines referencing this name, per file, in deterministic order. */
  referencesTo(name: string): readonly { relPath: string; line: number }[];
  /** The files referencing this name, sorted (referencesTo's files, without listing their lines). */
  filesReferencing(name: string): readonly string[];
  /** Text of lines [startLine, endLine) of an indexed file, joined with '\n'. */
  chunkText(chunk: Pick<Chunk, 'relPath' | 'startLine' | 'endLine'>): string;
}
