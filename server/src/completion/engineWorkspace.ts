/**
 * What the engine knows of the workspace: the server's one store of open documents
 * (openDocuments.ts), the workspace index laid under it, and the lexical index and retriever over
 * both. An edit lands once in the document store; the index takes the result (and re-indexes an
 * edited buffer at most every BUFFER_INDEX_DELAY_MS).
 */
import path from 'node:path';
import type { CompletionSettings } from '../../../shared/settings.js';
import { WorkspaceIndex } from '../indexing/workspaceIndex.js';
import type { DocumentEdit } from '../indexing/textEdits.js';
import { LexicalIndex } from '../retrieval/lexicalIndex.js';
import { Retriever } from '../retrieval/retriever.js';
import type { Logger } from '../util/logger.js';
import { uriToPath } from '../workspace/paths.js';
import type { IndexProgress, IndexStats, WatchedFileEvent } from './engine.js';
import { OpenDocuments } from './openDocuments.js';

/**
 * How stale an edited buffer's index entry may get while the user types: re-indexing a large
 * file on every keystroke made most of the server's garbage (docs/reliability.md, memory).
 */
const BUFFER_INDEX_DELAY_MS = 300;

export class EngineWorkspace {
  readonly documents = new OpenDocuments();
  readonly index: WorkspaceIndex;
  readonly retriever: Retriever;
  private readonly lexical: LexicalIndex;
  /**
   * Closed documents whose index entries are being restored from disk. A completion waits for
   * them, so what it retrieves does not depend on how fast the last close was (the bench saw
   * other candidates in 3 of 100 tasks between two runs before this).
   */
  private readonly pendingCloses = new Set<Promise<unknown>>();
  /** Workspace roots as last indexed; the repository format names the one holding a document. */
  private roots: string[] = [];

  constructor(settings: CompletionSettings, private readonly logger: Logger) {
    this.index = new WorkspaceIndex({
      logger, windowLines: settings.windowLines, windowStride: settings.windowStride,
      bufferIndexDelayMs: BUFFER_INDEX_DELAY_MS,
      maxFiles: settings.indexMaxFiles, maxBytes: settings.indexMaxMegabytes * 1024 * 1024,
    });
    this.lexical = new LexicalIndex(this.index);
    this.index.onDidChange((changes) => this.lexical.applyChanges(changes));
    this.retriever = new Retriever(this.index, this.lexical);
  }

  async indexRoots(roots: string[], onProgress: (p: IndexProgress) => void, signal?: AbortSignal): Promise<IndexStats> {
    const started = performance.now();
    const resolved = roots.map((root) => path.resolve(root));
    this.roots = resolved;
    const pass = await this.index.indexRoots(resolved, { onProgress, signal });
    const stats = { ...this.index.stats(), ...(pass.bound ? { bound: pass.bound } : {}) };
    return { roots: resolved, ...stats, wallMs: performance.now() - started, version: this.index.version };
  }

  openDocument(uri: string, text: string, version: number, editorLanguageId?: string): void {
    const document = this.documents.open(uri, text, version, editorLanguageId);
    if (document.absPath) this.index.openDocument(document.absPath, document.text, document.lines);
  }

  changeDocument(uri: string, edits: DocumentEdit[], version: number): boolean {
    const changed = this.documents.change(uri, edits, version);
    if (!changed) return false;
    if (changed.document.absPath) this.index.applyDocumentChange(changed.document.absPath, changed.change);
    return true;
  }

  closeDocument(uri: string): void {
    const document = this.documents.close(uri);
    if (!document?.absPath) return;
    const closing: Promise<unknown> = this.index.closeDocument(document.absPath)
      .catch((error: unknown) => this.logger.error(`closing ${uri}: ${String(error)}`))
      .finally(() => this.pendingCloses.delete(closing));
    this.pendingCloses.add(closing);
  }

  async filesChanged(events: WatchedFileEvent[]): Promise<void> {
    for (const event of events) {
      const absPath = uriToPath(event.uri);
      if (!absPath) continue;
      const result = event.type === 'deleted' ? this.index.remove(absPath) : await this.index.upsertFromDisk(absPath);
      this.logger.debug(`watched ${event.type} ${absPath}: ${JSON.stringify(result)}`);
    }
  }

  /**
   * Readies the index for a completion in `absPath`: closes still restoring are waited for, and
   * the document's pending edits are indexed. Retrieval then reads the other open documents as
   * they are now; this one's own entry may lag a few keystrokes (its text, the prompt's prefix
   * and suffix, is always current).
   */
  async settleFor(absPath: string | undefined): Promise<void> {
    if (this.pendingCloses.size > 0) await Promise.all(this.pendingCloses);
    this.index.flushBufferEdits(absPath);
  }

  relPathOf(absPath: string | undefined): string | undefined {
    return absPath ? this.index.relPathOf(absPath) : undefined;
  }

  /** The repository name the prompt's repository format gives: the root holding the document. */
  repoNameOf(absPath: string | undefined): string {
    const root = absPath ? this.roots.find((r) => absPath.startsWith(r + path.sep)) : undefined;
    return path.basename(root ?? this.roots[0] ?? (absPath ? path.dirname(absPath) : '')) || 'workspace';
  }

  dispose(): void {
    this.index.dispose();
  }
}
