/**
 * The workspace index: disk files found by discovery, overlaid by open editor buffers.
 *
 * An open document's buffer REPLACES its disk content: while it is open, disk events for the
 * file are ignored, and what retrieval sees (windows, chunks, definitions, references) comes
 * from the buffer alone. Closing it reverts to the disk file, or drops it if that is gone or not
 * indexable. Documents outside the roots (or excluded by path rules) are held, not indexed.
 * Lines strip the `\r` of CRLF endings; files with syntax errors are indexed as tree-sitter
 * recovered them.
 */
import * as path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { errorSummary } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { defaultDiscoveryFs, reportSkip, type DiscoveryFs, type SkippedPath } from '../workspace/discoveryFs.js';
import { DEFAULT_CONTENT_LIMITS, type ContentLimits } from '../workspace/fileFilters.js';
import { discoverSingleFile, readInOrder, walkSourceFiles, type CandidateFile, type DiscoveredFile, type DiscoveryOptions } from '../workspace/fileDiscovery.js';
import { resolveRoots, type WorkspaceRoot } from '../workspace/paths.js';
import { BufferOverlay } from './bufferOverlay.js';
import { DEFAULT_CHUNK_OPTIONS, validateChunkOptions, type ChunkOptions } from './chunker.js';
import { buildFileIndex } from './fileIndexer.js';
import { DEFAULT_WORKSPACE_BOUND, type DocumentResult, type IndexProgress, type IndexRootsResult, type UpsertResult, type WorkspaceBoundHit, type WorkspaceIndexOptions, type WorkspaceIndexStats } from './indexResults.js';
import { IndexStore } from './indexStore.js';
import { createParserSet, languageOfPath, PROJECT_FILE_NAMES, type ParserSet } from '../languages/registry.js';
import { applyEdits, type DocumentChange, type DocumentEdit } from './textEdits.js';
import type { Chunk, Definition, FileChange, FileIndex, IndexView } from './types.js';

export type { DocumentResult, IndexProgress, IndexRootsResult, UpsertResult, WorkspaceIndexOptions, WorkspaceIndexStats } from './indexResults.js';
export type { DocumentChange, DocumentEdit } from './textEdits.js';

/** Disk files overlaid by open buffers; see the module comment for the rules. */
export class WorkspaceIndex implements IndexView {
  private readonly store: IndexStore;
  private readonly buffers: BufferOverlay;
  private readonly logger: Logger;
  private readonly chunkOptions: ChunkOptions;
  private readonly fs: DiscoveryFs;
  private readonly limits: ContentLimits;
  private readonly yieldEvery: number;
  private readonly bufferIndexDelayMs: number;
  private readonly bound: { maxFiles: number; maxBytes: number };
  private bufferFlushTimer?: NodeJS.Timeout;
  private readonly reportedSkips = new Set<string>();
  /** Ticket of the disk read in flight per path: a read whose ticket is gone or replaced is stale. */
  private readonly tickets = new Map<string, number>();
  /**
   * Paths a watcher event (upsert or remove) settled while an indexRoots pass runs. The pass
   * leaves them alone: its walk and disk read may predate the event, and must not undo it.
   */
  private readonly settledDuringPass = new Set<string>();
  /** Real path of each indexed disk file -> the relPath it is indexed under (aliasOwner). */
  private readonly realPathOwners = new Map<string, string>();
  private readonly parserReady: Promise<ParserSet | undefined>;
  private parsers?: ParserSet;
  private parserError?: Error;
  /** The last grammar that could not load, said once. */
  private lastGrammarError?: string;
  private nextTicket = 0;
  private roots: WorkspaceRoot[] = [];
  /**
   * The roots of the latest indexRoots call, resolving: a watcher event is judged against them
   * even while that pass is still starting. Judged against the roots before, a file created in a
   * folder just added was "outside the workspace", and the pass then left it out as settled.
   */
  private latestRoots: Promise<readonly WorkspaceRoot[]> = Promise.resolve([]);
  private generation = 0;
  private lastSkipped: readonly SkippedPath[] = [];
  private disposed = false;

  /** Usable at once: without `options.parsers` it loads them in the background (see {@link ready}). */
  constructor(options: WorkspaceIndexOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    const { windowLines, windowStride, maxChunkLines } = { ...DEFAULT_CHUNK_OPTIONS, ...definedOnly(options) };
    this.chunkOptions = { windowLines, windowStride, maxChunkLines };
    validateChunkOptions(this.chunkOptions);
    this.fs = options.fs ?? defaultDiscoveryFs;
    this.limits = options.limits ?? DEFAULT_CONTENT_LIMITS;
    this.yieldEvery = Math.max(1, options.yieldEvery ?? 20);
    this.bufferIndexDelayMs = Math.max(0, options.bufferIndexDelayMs ?? 0);
    this.bound = { maxFiles: options.maxFiles ?? DEFAULT_WORKSPACE_BOUND.maxFiles, maxBytes: options.maxBytes ?? DEFAULT_WORKSPACE_BOUND.maxBytes };
    this.store = new IndexStore(this.logger);
    this.buffers = new BufferOverlay({
      store: this.store, parsers: () => this.parsers, roots: () => this.roots,
      // A document of a language the workspace had no file of: held until its grammar loads.
      loadGrammarFor: (relPath) => void this.loadGrammarsFor([relPath]).then(() => {
        if (this.parsers?.forPath(relPath)) this.buffers.indexAll();
      }),
      limits: this.limits, chunkOptions: this.chunkOptions, reportSkip: (skip) => this.reportSkip(skip),
    });
    this.parsers = options.parsers;
    this.parserReady = options.parsers ? Promise.resolve(options.parsers) : this.loadParsers();
  }

  /** An index whose parsers have loaded. */
  static async create(options: WorkspaceIndexOptions = {}): Promise<WorkspaceIndex> {
    const index = new WorkspaceIndex(options);
    await index.ready();
    return index;
  }

  /** Resolves once the parsers are loaded; rejects if a grammar cannot load (a fatal start-up error). */
  async ready(): Promise<void> {
    if (!(await this.parserReady)) throw this.parserError ?? new Error('the workspace index was disposed');
  }

  get version(): number {
    return this.store.version;
  }
  get fileSetVersion(): number {
    return this.store.fileSetVersion;
  }
  files(): Iterable<FileIndex> {
    return this.store.files();
  }
  file(relPath: string): FileIndex | undefined {
    return this.store.file(relPath);
  }
  definitionsNamed(name: string): readonly Definition[] {
    return this.store.definitionsNamed(name);
  }
  filesReferencing(name: string): readonly string[] {
    return this.store.filesReferencing(name);
  }
  referencesTo(name: string): readonly { relPath: string; line: number }[] {
    return this.store.referencesTo(name);
  }
  chunkText(chunk: Pick<Chunk, 'relPath' | 'startLine' | 'endLine'>): string {
    return this.store.chunkText(chunk);
  }

  /** Subscribe to batches of file changes (one batch per operation; indexRoots sends several). */
  onDidChange(listener: (changes: FileChange[]) => void): { dispose(): void } {
    return this.store.onDidChange(listener);
  }

  /**
   * Index every source file of `roots` (replacing any previous roots): files no longer found are
   * dropped, open buffers keep precedence. A newer call or the signal cancels this one, keeping
   * what was indexed so far. Yields to the event loop every `yieldEvery` files.
   */
  async indexRoots(
    roots: readonly string[],
    options: { onProgress?: (progress: IndexProgress) => void; signal?: AbortSignal } = {},
  ): Promise<IndexRootsResult> {
    const started = performance.now();
    const generation = ++this.generation;
    const cancelled = () => options.signal?.aborted === true || generation !== this.generation;
    const resolving = resolveRoots(roots);
    this.latestRoots = resolving;
    this.settledDuringPass.clear();
    await this.ready();
    this.roots = await resolving;
    this.store.forgetProjectFiles(); // Read again where resolution needs them: they may have changed unwatched.
    this.buffers.relocateAll();
    const discovery = this.discoveryOptions(options.signal);
    let candidates: CandidateFile[] = [];
    const skipped: SkippedPath[] = [];
    for await (const event of walkSourceFiles(this.roots, discovery)) {
      if (event.kind === 'candidate') candidates.push(event.file);
      else skipped.push(event.skip);
      if (candidates.length >= this.bound.maxFiles) break; // the walk of a huge tree stops here too
    }
    await this.loadGrammarsFor(candidates.map((candidate) => candidate.relPath));
    const pass = await this.indexCandidates(candidates, skipped, discovery, cancelled, options.onProgress);
    const bound = this.boundHit(candidates.length, pass);
    if (bound?.by === 'bytes') candidates = candidates.slice(0, pass.processed);
    this.lastSkipped = skipped;
    const kind = cancelled() ? 'cancelled' : 'ok';
    if (kind === 'ok') this.dropFilesNotIn(new Set(candidates.map((c) => c.absPath)));
    if (generation === this.generation) this.settledDuringPass.clear();
    this.store.commit();
    return { kind, files: pass.indexed, skipped, wallMs: performance.now() - started, ...(bound ? { bound } : {}) };
  }

  /**
   * Re-read one file from disk (a watcher event). Applies the same path and content rules as
   * the walk; a file that vanished or became unindexable leaves the index.
   */
  async upsertFromDisk(absPath: string): Promise<UpsertResult> {
    const abs = path.resolve(absPath);
    if (this.projectFileChanged(abs)) return { kind: 'project-file' };
    if (this.buffers.owns(abs)) return { kind: 'buffer-open' };
    const ticket = this.takeTicket(abs);
    if (!(await this.parserReady) || this.disposed) return { kind: 'unavailable', detail: this.parserError?.message ?? 'disposed' };
    const roots = this.latestRoots;
    const result = await discoverSingleFile(abs, await roots, this.discoveryOptions());
    if (result.kind === 'file') await this.loadGrammarsFor([result.file.relPath]);
    if (this.tickets.get(abs) !== ticket) return { kind: 'superseded' };
    // The roots changed while it was judged (a folder added or removed): its verdict may be stale
    // (a file of the new folder judged outside, then dropped after the new pass indexed it).
    if (this.latestRoots !== roots) return this.upsertFromDisk(absPath);
    this.tickets.delete(abs);
    this.settledDuringPass.add(abs);
    const relPath = result.kind === 'file' ? result.file.relPath : result.skip.relPath || this.store.relPathOf(abs);
    if (this.buffers.owns(abs, relPath)) return { kind: 'buffer-open' };
    if (result.kind === 'skip') {
      this.dropDiskEntry(abs, relPath, true);
      this.store.commit();
      return { kind: 'skipped', reason: result.skip.reason, detail: result.skip.detail };
    }
    const owner = this.aliasOwner(result.file);
    if (owner !== undefined) {
      // The same file reached through a symlink (`loop -> .` gives loop/loop/…/x.py): one entry only.
      this.dropDiskEntry(abs, relPath, true);
      this.store.commit();
      return { kind: 'skipped', reason: 'symlink-loop', detail: `same file as ${owner}` };
    }
    const indexed = this.indexDiskFileSafely(result.file);
    this.store.commit();
    if (typeof indexed !== 'boolean') return { kind: 'skipped', reason: indexed.reason, detail: indexed.detail };
    if (!indexed) return { kind: 'skipped', reason: 'outside-workspace', detail: `relPath ${result.file.relPath} belongs to another root` };
    return { kind: 'indexed', relPath: result.file.relPath };
  }

  /** Forget a file deleted on disk; an open buffer for it stays indexed. */
  remove(absPath: string): { kind: 'removed' | 'not-indexed' | 'buffer-open' | 'project-file' } {
    const abs = path.resolve(absPath);
    if (this.projectFileChanged(abs)) return { kind: 'project-file' };
    this.tickets.delete(abs); // A disk read in flight for this file is now stale.
    this.settledDuringPass.add(abs);
    const relPath = this.store.relPathOf(abs);
    if (this.buffers.owns(abs, relPath)) return { kind: 'buffer-open' };
    if (relPath === undefined || !this.store.remove(relPath)) return { kind: 'not-indexed' };
    this.store.commit();
    return { kind: 'removed' };
  }

  /**
   * Open a document: its buffer replaces the disk content in the index while it is open. `lines`
   * (splitLines of `text`) may come from a document store that split them already.
   */
  openDocument(absPath: string, text: string, lines?: string[]): DocumentResult {
    const abs = path.resolve(absPath);
    this.tickets.delete(abs); // A disk read in flight for this file must not land after this.
    return this.buffers.open(abs, text, lines);
  }

  /**
   * Apply LSP incremental-sync edits in order to the buffer itself, for callers without a
   * document store of their own (the server's store applies them once and calls
   * {@link applyDocumentChange}).
   */
  applyDocumentEdits(absPath: string, edits: readonly DocumentEdit[]): DocumentResult {
    const doc = this.buffers.get(path.resolve(absPath));
    if (!doc) return { kind: 'not-open' };
    return this.applyDocumentChange(absPath, applyEdits(doc, edits));
  }

  /**
   * Take an open document's text after edits and reindex incrementally (old tree reused): at
   * once, or with `bufferIndexDelayMs` within that delay (timed from the first unindexed edit,
   * so continuous typing cannot postpone it forever).
   */
  applyDocumentChange(absPath: string, change: DocumentChange): DocumentResult {
    const defer = this.bufferIndexDelayMs > 0 && this.parsers !== undefined;
    const result = this.buffers.edit(path.resolve(absPath), change, defer);
    if (result.kind === 'deferred' && !this.bufferFlushTimer) {
      this.bufferFlushTimer = setTimeout(() => this.flushBufferEdits(), this.bufferIndexDelayMs);
      this.bufferFlushTimer.unref();
    }
    return result;
  }

  /**
   * Index buffers whose edits were deferred now, except `exceptAbsPath`: a completion calls this
   * for the other open documents (what retrieval reads from them must be current) and leaves its
   * own document, whose index entry it does not need keystroke-fresh, to the timer.
   */
  flushBufferEdits(exceptAbsPath?: string): void {
    const except = exceptAbsPath === undefined ? undefined : path.resolve(exceptAbsPath);
    if (except === undefined) {
      clearTimeout(this.bufferFlushTimer);
      delete this.bufferFlushTimer;
    }
    if (!this.disposed) this.buffers.flush(except);
  }

  /** Close a document: the index reverts to the disk file, or drops it when it is gone or not indexable. */
  async closeDocument(absPath: string): Promise<UpsertResult | { kind: 'not-open' }> {
    const doc = this.buffers.close(path.resolve(absPath));
    if (!doc) return { kind: 'not-open' };
    if (!doc.location) return { kind: 'skipped', reason: doc.exclusion?.reason ?? 'outside-workspace', detail: 'the document was not indexed' };
    return this.upsertFromDisk(doc.location.absPath);
  }

  /** relPath of an indexed file or open document, by absolute path. */
  relPathOf(absPath: string): string | undefined {
    const abs = path.resolve(absPath);
    return this.buffers.get(abs)?.location?.relPath ?? this.store.relPathOf(abs);
  }

  /** The buffer of an open document and where it is indexed, if it is open. */
  openDocumentText(absPath: string): { text: string; relPath?: string } | undefined {
    const doc = this.buffers.get(path.resolve(absPath));
    if (!doc) return undefined;
    return doc.location ? { text: doc.text, relPath: doc.location.relPath } : { text: doc.text };
  }

  /** Sizes of the index. */
  stats(): WorkspaceIndexStats {
    const totals = { files: 0, windows: 0, structuralChunks: 0, imports: 0, lines: 0, bytes: 0 };
    const filesByLanguage: Record<string, number> = {};
    for (const file of this.store.files()) {
      totals.files++;
      const language = languageOfPath(file.relPath)?.id;
      if (language) filesByLanguage[language] = (filesByLanguage[language] ?? 0) + 1;
      totals.windows += file.windows.length;
      totals.structuralChunks += file.structural.length;
      totals.imports += file.imports.length;
      totals.lines += file.lines.length;
      totals.bytes += Buffer.byteLength(file.text, 'utf8');
    }
    const { definitions, referencedNames } = this.store.tableCounts();
    return {
      ...totals, filesByLanguage, skipped: this.lastSkipped.length, skippedByReason: countByReason(this.lastSkipped), openDocuments: this.buffers.size,
      definitions, referencedNames, version: this.store.version,
    };
  }

  /** Free parser and tree memory; the index is unusable afterwards. */
  dispose(): void {
    clearTimeout(this.bufferFlushTimer);
    this.disposed = true;
    this.generation++;
    this.buffers.dispose();
    this.parsers?.dispose();
    delete this.parsers;
  }

  /** A project file changed (`go.mod`, `package.json`): imports are resolved again. */
  private projectFileChanged(abs: string): boolean {
    if (!PROJECT_FILE_NAMES.has(path.basename(abs))) return false;
    this.store.projectFileChanged();
    this.store.commit();
    return true;
  }

  /**
   * Loads the grammars these files need (the first file of a language loads its grammar). One
   * that cannot load is logged, and its language's files are not indexed.
   */
  private async loadGrammarsFor(relPaths: readonly string[]): Promise<void> {
    try {
      await this.parsers?.load(relPaths);
    } catch (error) {
      const why = error instanceof Error ? `${error.message}: ${String(error.cause ?? '')}` : String(error);
      if (why !== this.lastGrammarError) this.logger.error(why);
      this.lastGrammarError = why;
    }
  }

  /** The tree-sitter runtime at once; each grammar when the first file of its language comes (loadGrammarsFor). */
  private loadParsers(): Promise<ParserSet | undefined> {
    return createParserSet([]).then(
      (parsers) => {
        if (this.disposed) {
          parsers.dispose();
          return undefined;
        }
        this.parsers = parsers;
        this.buffers.indexAll(); // Documents opened while the grammars loaded were held.
        return parsers;
      },
      (error: unknown) => {
        this.parserError = error instanceof Error ? error : new Error(String(error));
        this.logger.error(`${this.parserError.message}: ${String(this.parserError.cause ?? '')}`);
        return undefined;
      },
    );
  }

  private async indexCandidates(
    candidates: readonly CandidateFile[], skipped: SkippedPath[], discovery: DiscoveryOptions,
    cancelled: () => boolean, onProgress?: (progress: IndexProgress) => void,
  ): Promise<{ indexed: number; processed: number; bytes: number }> {
    let indexed = 0;
    let bytes = 0;
    let processed = 0;
    for await (const read of readInOrder(candidates, discovery)) {
      if (cancelled() || bytes >= this.bound.maxBytes) break;
      const i = processed++;
      if (this.settledDuringPass.has(read.kind === 'file' ? read.file.absPath : read.skip.absPath)) {
        // A watcher event already decided this file, after this read may have been made.
      } else if (read.kind === 'file') {
        bytes += Buffer.byteLength(read.file.text, 'utf8');
        const outcome = this.indexDiskFileSafely(read.file);
        if (outcome === true) indexed++;
        else if (outcome !== false) skipped.push(outcome);
      } else {
        skipped.push(read.skip);
        this.dropDiskEntry(read.skip.absPath, read.skip.relPath);
      }
      if ((i + 1) % this.yieldEvery === 0 || i + 1 === candidates.length) {
        this.store.commit(false); // Imports are resolved once, at the end.
        onProgress?.({ filesDone: i + 1, filesTotal: candidates.length, currentFile: candidates[i]!.relPath });
        await yieldToEventLoop();
      }
    }
    return { indexed, processed, bytes };
  }

  /** Whether the pass stopped at the workspace bound (files walked, or bytes read). */
  private boundHit(walked: number, pass: { indexed: number; bytes: number }): WorkspaceBoundHit | undefined {
    if (pass.bytes >= this.bound.maxBytes) return { by: 'bytes', limit: this.bound.maxBytes, files: pass.indexed, bytes: pass.bytes };
    if (walked >= this.bound.maxFiles) return { by: 'files', limit: this.bound.maxFiles, files: pass.indexed, bytes: pass.bytes };
    return undefined;
  }

  /**
   * {@link indexDiskFile}, or the file skipped when the server fails on it: one file the parser or
   * a language's rules cannot handle must not stop the index of every file after it.
   */
  private indexDiskFileSafely(file: DiscoveredFile): boolean | SkippedPath {
    try {
      return this.indexDiskFile(file);
    } catch (error) {
      const detail = `${errorSummary(error)}; please report the file's shape as a bug`;
      const skip: SkippedPath = { absPath: file.absPath, relPath: file.relPath, reason: 'index-failed', detail };
      this.reportSkip(skip);
      this.dropDiskEntry(file.absPath, file.relPath); // What it held before is not what the file holds now.
      return skip;
    }
  }

  /** Parse, extract, free the tree, stage. Skipped when an open buffer owns the file. */
  private indexDiskFile(file: DiscoveredFile): boolean {
    const parser = this.parsers?.forPath(file.relPath);
    if (!parser || this.buffers.owns(file.absPath, file.relPath)) return false;
    const tree = parser.parse(file.text);
    let index: FileIndex;
    try {
      index = buildFileIndex(
        { relPath: file.relPath, absPath: file.absPath, text: file.text, version: this.store.nextFileVersion(file.relPath), fromBuffer: false },
        tree, this.chunkOptions,
      );
    } finally {
      tree.delete();
    }
    const put = this.store.put(index);
    if (put) this.realPathOwners.set(file.realPath, file.relPath);
    return put;
  }

  /**
   * The relPath under which the disk file at `file.realPath` is already indexed, when that is
   * another relPath than `file`'s. Owners are checked when read, so removals need not update them.
   */
  private aliasOwner(file: DiscoveredFile): string | undefined {
    const owner = this.realPathOwners.get(file.realPath);
    if (owner === undefined || owner === file.relPath) return undefined;
    const current = this.store.file(owner);
    if (current && !current.fromBuffer) return owner;
    this.realPathOwners.delete(file.realPath);
    return undefined;
  }

  /** Unstage a file that is no longer indexable; a closed buffer's entry goes too when asked. */
  private dropDiskEntry(absPath: string, relPath: string | undefined, includeClosedBuffer = false): void {
    const rel = relPath || this.store.relPathOf(absPath);
    if (rel === undefined || this.buffers.owns(absPath, rel)) return;
    const current = this.store.file(rel);
    if (current && current.absPath === absPath && (includeClosedBuffer || !current.fromBuffer)) this.store.remove(rel);
  }

  private dropFilesNotIn(found: ReadonlySet<string>): void {
    const stale = [...this.store.files()].filter((f) => !found.has(f.absPath) && !this.settledDuringPass.has(f.absPath) && !this.buffers.owns(f.absPath, f.relPath));
    for (const file of stale) this.store.remove(file.relPath);
  }

  private discoveryOptions(signal?: AbortSignal): DiscoveryOptions {
    const options: DiscoveryOptions = { logger: this.logger, fs: this.fs, limits: this.limits, reported: this.reportedSkips };
    if (signal) options.signal = signal;
    return options;
  }

  private reportSkip(skip: SkippedPath): void {
    reportSkip(skip, this.logger, this.reportedSkips);
  }

  private takeTicket(abs: string): number {
    const ticket = ++this.nextTicket;
    this.tickets.set(abs, ticket);
    return ticket;
  }
}

/** Drop keys whose value is undefined, so they do not override defaults when spread. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** How many skips of each reason. */
function countByReason(skipped: readonly SkippedPath[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const skip of skipped) counts[skip.reason] = (counts[skip.reason] ?? 0) + 1;
  return counts;
}
