/**
 * Options and outcome types of WorkspaceIndex: expected outcomes are values, never exceptions.
 */
import type { Logger } from '../util/logger.js';
import type { DiscoveryFs } from '../workspace/discoveryFs.js';
import type { SkippedPath } from '../workspace/fileDiscovery.js';
import type { ContentLimits } from '../workspace/fileFilters.js';
import type { ChunkOptions } from './chunker.js';
import type { ParserSet } from '../languages/registry.js';
import type { SkipReason } from '../workspace/fileFilters.js';

/** Construction options; everything has a default. Chunk sizes (windowLines, windowStride, maxChunkLines) sit at top level. */
export interface WorkspaceIndexOptions extends Partial<ChunkOptions> {
  logger?: Logger;
  /** Parsers to use; when absent the index loads its own in the background (see `ready()`). */
  parsers?: ParserSet;
  limits?: ContentLimits;
  /** File-system port for discovery (tests inject failures). */
  fs?: DiscoveryFs;
  /** Files indexed between yields to the event loop in indexRoots, so an LSP server stays responsive. */
  yieldEvery?: number;
  /**
   * Re-index an edited buffer at most this often (ms) instead of on every edit; 0 (the default)
   * indexes at once. The server uses a few hundred ms: completions never wait for it (see
   * WorkspaceIndex.flushBufferEdits), and a large file typed in fast makes far less garbage.
   */
  bufferIndexDelayMs?: number;
  /** The workspace bound: indexRoots stops after this many files… (default {@link DEFAULT_WORKSPACE_BOUND}). */
  maxFiles?: number;
  /** …or after this many bytes of source, whichever comes first. */
  maxBytes?: number;
}

/** What fits a laptop: a large monorepo's Python, not a whole disk (the root at `/` gave 17,391 files and 2.1 GB). */
export const DEFAULT_WORKSPACE_BOUND = { maxFiles: 10_000, maxBytes: 200 * 1024 * 1024 };

/** Where indexRoots stopped at the workspace bound. */
export interface WorkspaceBoundHit {
  by: 'files' | 'bytes';
  /** The bound that was hit (files, or bytes). */
  limit: number;
  files: number;
  bytes: number;
}

/** Progress of indexRoots (the shape of completion/engine.ts's IndexProgress). */
export interface IndexProgress {
  filesDone: number;
  filesTotal: number;
  currentFile?: string;
}

/** What the status, the log and the CLI say when the workspace bound stopped indexing, with the two ways out. */
export function boundMessage(bound: WorkspaceBoundHit): string {
  const what = bound.by === 'files' ? `${bound.limit} files (reposhapley.indexMaxFiles)` : `${Math.round(bound.limit / 1024 / 1024)} MB (reposhapley.indexMaxMegabytes)`;
  return `stopped at the workspace bound of ${what}: the rest of the workspace is not indexed. Open a smaller folder, or raise the setting`;
}

/** Outcome of indexRoots: 'cancelled' keeps what was indexed so far. */
export interface IndexRootsResult {
  kind: 'ok' | 'cancelled';
  files: number;
  skipped: SkippedPath[];
  wallMs: number;
  /** Set when the workspace bound stopped the pass: the rest of the workspace is not indexed. */
  bound?: WorkspaceBoundHit;
}

/** Outcome of a disk update (upsertFromDisk, closeDocument). */
export type UpsertResult =
  | { kind: 'indexed'; relPath: string }
  | { kind: 'skipped'; reason: SkipReason; detail: string }
  /** An open buffer owns the file; the disk content is ignored until it closes. */
  | { kind: 'buffer-open' }
  /** A project file import resolution reads (`go.mod`): imports were resolved again. */
  | { kind: 'project-file' }
  /** A later update of the same path started before this one finished; it decides. */
  | { kind: 'superseded' }
  /** The parser could not load, or the index was disposed. */
  | { kind: 'unavailable'; detail: string };

/** Outcome of an open-document operation. */
export type DocumentResult =
  | { kind: 'indexed'; relPath: string }
  /** Held for the editor but not in the index (outside the roots, vendored, failing a content rule). */
  | { kind: 'held'; reason: SkipReason; detail: string }
  /** Accepted; it is indexed as soon as the parser has loaded (only before `ready()` resolves). */
  | { kind: 'pending' }
  /** Edited; the index entry follows within `bufferIndexDelayMs` or at the next flush. */
  | { kind: 'deferred' }
  | { kind: 'not-open' };

/** Sizes of the index, for status and benchmarks (spreads into completion's IndexStats). */
export interface WorkspaceIndexStats {
  files: number;
  /** Indexed files by language id (`python`, `typescript`, ...), each language present once. */
  filesByLanguage: Record<string, number>;
  /** Paths skipped by the last indexRoots. */
  skipped: number;
  /** The same by reason (`minified`, `ignored-by-gitignore`, ...), each reason present once. */
  skippedByReason: Record<string, number>;
  openDocuments: number;
  windows: number;
  structuralChunks: number;
  definitions: number;
  referencedNames: number;
  imports: number;
  lines: number;
  /** UTF-8 bytes of indexed text. */
  bytes: number;
  version: number;
}
