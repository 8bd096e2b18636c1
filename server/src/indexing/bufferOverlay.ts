/**
 * Open editor buffers laid over the disk index. A buffer inside the roots REPLACES the file's
 * disk entry (same relPath, same canonical absPath, `fromBuffer: true`); a buffer that fails
 * the path or content rules withdraws the disk entry too, because the editor's text is the
 * truth while it is open. Buffers outside the roots are held for the editor, never indexed.
 */
import type { SkippedPath } from '../workspace/discoveryFs.js';
import { checkText, type ContentLimits } from '../workspace/fileFilters.js';
import type { WorkspaceRoot } from '../workspace/paths.js';
import type { ChunkOptions } from './chunker.js';
import { DocumentBuffers, type OpenDocument } from './documentBuffers.js';
import { placeDocument } from './documentLocation.js';
import { buildFileIndex } from './fileIndexer.js';
import type { DocumentResult } from './indexResults.js';
import type { IndexStore } from './indexStore.js';
import type { ParserSet } from '../languages/registry.js';
import type { DocumentChange } from './textEdits.js';

/** What the overlay needs from its owner. */
export interface BufferOverlayDeps {
  store: IndexStore;
  /** Undefined while the tree-sitter runtime is still starting: buffers are held until then. */
  parsers(): ParserSet | undefined;
  /** Load the grammar of a document's language, then index the held buffers again. */
  loadGrammarFor(relPath: string): void;
  roots(): readonly WorkspaceRoot[];
  limits: ContentLimits;
  chunkOptions: ChunkOptions;
  reportSkip(skip: SkippedPath): void;
}

/** The open documents and their entries in the index. */
export class BufferOverlay {
  private readonly documents = new DocumentBuffers();
  /** Buffers edited since they were last indexed (deferred edits, see {@link edit}). */
  private readonly stale = new Set<OpenDocument>();

  constructor(private readonly deps: BufferOverlayDeps) {}

  get size(): number {
    return this.documents.size;
  }

  get(path: string): OpenDocument | undefined {
    return this.documents.get(path);
  }

  /** Does an open buffer own this path or relPath? Then disk content must not touch it. */
  owns(absPath: string, relPath?: string): boolean {
    return this.documents.has(absPath) || (relPath !== undefined && this.documents.ownerOf(relPath) !== undefined);
  }

  open(path: string, text: string, lines?: string[]): DocumentResult {
    const doc = this.documents.open(path, text, lines);
    this.place(doc);
    return this.index(doc);
  }

  /**
   * Take an edited buffer (and edit its tree). With `defer`, the index entry is rebuilt later,
   * by {@link flush}: typing fast in a large file then re-indexes it a few times a second, not
   * on every keystroke.
   */
  edit(path: string, change: DocumentChange, defer = false): DocumentResult {
    const doc = this.documents.get(path);
    if (!doc) return { kind: 'not-open' };
    this.documents.applyChange(doc, change);
    if (defer && doc.location) {
      this.stale.add(doc);
      return { kind: 'deferred' };
    }
    return this.index(doc);
  }

  /** Index the buffers with deferred edits, except the one at `exceptPath`. */
  flush(exceptPath?: string): void {
    for (const doc of [...this.stale]) if (doc.path !== exceptPath) this.index(doc);
  }

  /** Forget the buffer; its index entry stays until the caller reverts it to disk. */
  close(path: string): OpenDocument | undefined {
    const doc = this.documents.close(path);
    if (doc) this.stale.delete(doc);
    return doc;
  }

  /** Re-judge every buffer (the roots changed) and index or withdraw it. */
  relocateAll(): void {
    for (const doc of this.documents.values()) {
      const before = doc.location?.relPath;
      this.place(doc);
      if (before !== undefined && before !== doc.location?.relPath) this.deps.store.remove(before);
      this.index(doc);
    }
  }

  /** Index every buffer again (the parser has just loaded). */
  indexAll(): void {
    for (const doc of this.documents.values()) this.index(doc);
  }

  dispose(): void {
    this.stale.clear();
    this.documents.dispose();
  }

  private place(doc: OpenDocument): void {
    const placement = placeDocument(doc.path, this.deps.roots());
    delete doc.location;
    delete doc.exclusion;
    if (placement.kind === 'indexable') doc.location = placement.location;
    else doc.exclusion = { reason: placement.reason, detail: placement.detail };
  }

  /** Index a buffer, or withdraw it together with the disk content it replaces. */
  private index(doc: OpenDocument): DocumentResult {
    this.stale.delete(doc);
    const { store } = this.deps;
    const location = doc.location;
    if (!location) {
      this.documents.dropTree(doc);
      return { kind: 'held', reason: doc.exclusion?.reason ?? 'outside-workspace', detail: doc.exclusion?.detail ?? '' };
    }
    const check = checkText(doc.text, this.deps.limits);
    if (check.kind === 'skip') {
      this.documents.dropTree(doc);
      this.deps.reportSkip({ absPath: location.absPath, relPath: location.relPath, reason: check.reason, detail: check.detail });
      if (store.file(location.relPath)?.absPath === location.absPath) store.remove(location.relPath);
      store.commit();
      return { kind: 'held', reason: check.reason, detail: check.detail };
    }
    const parsers = this.deps.parsers();
    if (!parsers) return { kind: 'pending' };
    // Placement admitted only a file of a registered language; its grammar may not be loaded yet.
    const parser = parsers.forPath(location.relPath);
    if (!parser) {
      this.deps.loadGrammarFor(location.relPath);
      return { kind: 'pending' };
    }
    const tree = this.documents.reparse(doc, parser);
    const index = buildFileIndex(
      { ...location, text: doc.text, lines: doc.lines, version: store.nextFileVersion(location.relPath), fromBuffer: true },
      tree, this.deps.chunkOptions, { statements: doc.statements, previous: store.file(location.relPath) },
    );
    const ok = store.put(index);
    store.commit();
    if (!ok) return { kind: 'held', reason: 'outside-workspace', detail: `relPath ${location.relPath} belongs to another root` };
    return { kind: 'indexed', relPath: location.relPath };
  }
}
