/**
 * The indexed files and everything derived from the whole set: name tables, import resolution,
 * the version counter and change notifications. Writers stage changes with put/remove and
 * publish them with commit, so listeners see one batch per operation.
 */
import { silentLogger, type Logger } from '../util/logger.js';
import { ImportDependents } from './importDependents.js';
import { applyImportResolution, resolveImport } from './importResolver.js';
import { SymbolTables } from './symbolTables.js';
import type { Chunk, Definition, FileChange, FileIndex, IndexView } from './types.js';

/** Listener for committed changes. */
export type ChangeListener = (changes: FileChange[]) => void;

/** Files by relPath plus derived tables; implements the read side retrieval sees. */
export class IndexStore implements IndexView {
  private readonly byRelPath = new Map<string, FileIndex>();
  private readonly relPathByAbs = new Map<string, string>();
  private readonly tables = new SymbolTables();
  private readonly listeners = new Set<ChangeListener>();
  private readonly collisionsReported = new Set<string>();
  private readonly dependents = new ImportDependents();
  private pending: FileChange[] = [];
  /** relPaths that appeared or disappeared since imports were last resolved. */
  private readonly fileSetChanges = new Set<string>();
  private currentVersion = 0;
  private currentFileSetVersion = 0;

  constructor(private readonly logger: Logger = silentLogger) {}

  get version(): number {
    return this.currentVersion;
  }

  get fileSetVersion(): number {
    return this.currentFileSetVersion;
  }

  files(): Iterable<FileIndex> {
    return this.byRelPath.values();
  }

  file(relPath: string): FileIndex | undefined {
    return this.byRelPath.get(relPath);
  }

  /** relPath under which the file at `absPath` is indexed, if it is. */
  relPathOf(absPath: string): string | undefined {
    return this.relPathByAbs.get(absPath);
  }

  definitionsNamed(name: string): readonly Definition[] {
    return this.tables.definitionsNamed(name);
  }

  referencesTo(name: string): readonly { relPath: string; line: number }[] {
    const sites: { relPath: string; line: number }[] = [];
    for (const relPath of this.tables.filesReferencing(name)) {
      for (const line of this.byRelPath.get(relPath)?.references.get(name) ?? []) sites.push({ relPath, line });
    }
    return sites;
  }

  chunkText(chunk: Pick<Chunk, 'relPath' | 'startLine' | 'endLine'>): string {
    const file = this.byRelPath.get(chunk.relPath);
    if (!file) return '';
    return file.lines.slice(Math.max(0, chunk.startLine), Math.max(0, chunk.endLine)).join('\n');
  }

  /** Version number the next index of `relPath` should carry. */
  nextFileVersion(relPath: string): number {
    return (this.byRelPath.get(relPath)?.version ?? 0) + 1;
  }

  /**
   * Stage a file's new index. Returns false, and changes nothing, when a different file (from
   * another root with the same relPath) already owns the relPath: the first root wins.
   */
  put(index: FileIndex): boolean {
    const before = this.byRelPath.get(index.relPath);
    if (before && before.absPath !== index.absPath) {
      if (!this.collisionsReported.has(index.absPath)) {
        this.collisionsReported.add(index.absPath);
        this.logger.warn(`not indexing ${index.absPath}: relPath ${index.relPath} is already ${before.absPath} (same path in two roots)`);
      }
      return false;
    }
    // The same file under another relPath (the roots changed, e.g. a subfolder became a root).
    const movedFrom = this.relPathByAbs.get(index.absPath);
    if (movedFrom !== undefined && movedFrom !== index.relPath) this.remove(movedFrom);
    this.resolveImportsOf(index);
    if (!before) this.fileSetChanged(index.relPath);
    this.dependents.update(index);
    this.byRelPath.set(index.relPath, index);
    this.relPathByAbs.set(index.absPath, index.relPath);
    this.tables.replace(before, index);
    this.pending.push(before ? { relPath: index.relPath, before, after: index } : { relPath: index.relPath, after: index });
    return true;
  }

  /** Stage the removal of a file; returns whether it was indexed. */
  remove(relPath: string): boolean {
    const before = this.byRelPath.get(relPath);
    if (!before) return false;
    this.byRelPath.delete(relPath);
    this.relPathByAbs.delete(before.absPath);
    this.tables.replace(before, undefined);
    this.dependents.delete(relPath);
    this.fileSetChanged(relPath);
    this.pending.push({ relPath, before });
    return true;
  }

  private fileSetChanged(relPath: string): void {
    this.fileSetChanges.add(relPath);
    this.currentFileSetVersion++;
  }

  /**
   * Publish staged changes: bump the version, re-resolve the imports that files appearing or
   * disappearing can change (unless `resolveImports` is false: a bulk load resolves once at its
   * end), notify. Re-resolution updates ImportRecords of unchanged files in place; it does not
   * emit changes.
   */
  commit(resolveImports = true): FileChange[] {
    if (resolveImports && this.fileSetChanges.size > 0) this.resolveAffectedImports();
    const changes = this.pending;
    if (changes.length === 0) return changes;
    this.pending = [];
    this.currentVersion++;
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch (error) {
        this.logger.error(`index change listener failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      }
    }
    return changes;
  }

  /** Subscribe to committed changes. */
  onDidChange(listener: ChangeListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Counts of the derived tables. */
  tableCounts(): ReturnType<SymbolTables['counts']> {
    return this.tables.counts();
  }

  /** Re-resolve the imports of every file against the current file set. */
  resolveAllImports(): void {
    this.fileSetChanges.clear();
    for (const file of this.byRelPath.values()) this.resolveImportsOf(file);
  }

  /** Re-resolve the imports the latest appearances and disappearances can change (ImportDependents). */
  private resolveAffectedImports(): void {
    const affected = this.dependents.affectedBy(this.fileSetChanges);
    if (affected === undefined) return this.resolveAllImports();
    this.fileSetChanges.clear();
    for (const relPath of affected) {
      const file = this.byRelPath.get(relPath);
      if (file) this.resolveImportsOf(file);
    }
  }

  private resolveImportsOf(file: FileIndex): void {
    const hasFile = (relPath: string) => this.byRelPath.has(relPath) || relPath === file.relPath;
    for (const record of file.imports) applyImportResolution(record, resolveImport(record, file, hasFile));
  }
}
