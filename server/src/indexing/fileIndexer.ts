/**
 * Builds the FileIndex of one file from its text and tree: the single place where symbols and
 * chunks are put together, so disk files, open buffers and the bench index identically.
 */
import { DEFAULT_CHUNK_OPTIONS, slidingWindows, structuralChunks, type ChunkOptions } from './chunker.js';
import { languageOfPath } from '../languages/registry.js';
import type { Tree } from '../languages/syntaxTree.js';
import { extractSymbols, type StatementCache, type SymbolExtraction } from './symbols.js';
import { splitLines } from './textEdits.js';
import type { FileIndex } from './types.js';
import { errorSummary } from '../util/errors.js';

export { splitLines } from './textEdits.js';

/** What identifies the file and its text; the tree must have been parsed from exactly `text`. */
export interface FileIndexInput {
  relPath: string;
  absPath: string;
  text: string;
  version: number;
  fromBuffer: boolean;
  /** `splitLines(text)`, when the caller already has it (an open buffer keeps its lines up to date). */
  lines?: string[];
}

/** What an open buffer carries from one version to the next, so an edit rebuilds little. */
export interface IncrementalState {
  /** Symbols per top-level statement: only changed statements are re-extracted. */
  statements: StatementCache;
  /** The index of the previous version: unchanged windows are reused as they are. */
  previous?: FileIndex;
}

/**
 * Index one parsed file. Import paths are resolved later, by the workspace (they depend on other
 * files). Open buffers pass their {@link IncrementalState}; the result is the same either way.
 * A file whose symbols cannot be read (a shape the rules fail on) is still indexed as text: its
 * windows serve lexical retrieval, and `symbolError` says why it has no symbols.
 */
export function buildFileIndex(
  input: FileIndexInput, tree: Tree, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS, incremental?: IncrementalState,
): FileIndex {
  const lines = input.lines ?? splitLines(input.text);
  const language = languageOfPath(input.relPath);
  // Discovery and document placement admit only files of a registered language.
  if (!language) throw new Error(`no registered language reads ${input.relPath}`);
  let symbols: SymbolExtraction;
  let symbolError: string | undefined;
  try {
    symbols = extractSymbols(tree, input.text, input.relPath, language, incremental?.statements);
  } catch (error) {
    symbolError = errorSummary(error);
    symbols = { sites: [], imports: [], references: new Map(), hasSyntaxErrors: tree.rootNode.hasError };
  }
  const index: FileIndex = {
    relPath: input.relPath,
    absPath: input.absPath,
    text: input.text,
    lines,
    version: input.version,
    fromBuffer: input.fromBuffer,
    windows: slidingWindows(input.relPath, lines, options, incremental?.previous?.windows),
    structural: structuralChunks(input.relPath, symbols, lines, options),
    definitions: symbols.sites.map((site) => site.definition),
    imports: symbols.imports,
    references: symbols.references,
    hasSyntaxErrors: symbols.hasSyntaxErrors,
  };
  if (symbolError !== undefined) index.symbolError = symbolError;
  return index;
}
