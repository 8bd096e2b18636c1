/**
 * The indexed files and everything derived from the whole set: name tables, import resolution,
 * the version counter and change notifications. Writers stage changes with put/remove and
 * publish them with commit, so listeners see one batch per operation.
 */
import { errorSummary } from '../util/errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { ImportDependents } from './importDependents.js';
import type { CodeLanguage, ImportResolution } from '../languages/language.js';
import { languageOfPath } from '../languages/registry.js';
import { SymbolTables } from './symbolTables.js';
import type { Chunk, Definition, FileChange, FileIndex, ImportRecord, IndexView } from './types.js';
import { IndexedFileSet } from './workspaceFiles.js';

/** Listener for committed changes. */
export type ChangeListener = (changes: FileChange[]) => void;

/** Files by relPath plus derived tables; implements the read side retrieval sees. */
export class IndexStore implements IndexView {
  private readonly byRelPath = new Map<string, FileIndex>();
  private readonly relPathByAbs = new Map<string, string>();
  private readonly tables = new SymbolTables();
  private readonly listeners = new Set<ChangeListener>();
  private readonly collisionsReported = new Set<string>();
  private readonly symbolErrorsReported = new Set<string>();
  private readonly resolutionErrorsReported = new Set<string>();
  private readonly dependents = new ImportDependents();
  private readonly fileSet = new IndexedFileSet((relPath) => this.byRelPath.has(relPath));
  private pending: FileChange[] = [];
  /**
   * Staged files whose imports are not resolved yet. They are resolved when published, against the
   * whole file set: a bulk load resolves each import once, not once when its file is staged (against
   * the files staged so far) and again at the end.
   */
  private unresolved = new Set<string>();
  /** relPaths that appeared or disappeared since imports were last resolved. */
  private readonly fileSetChanges = new Set<string>();
  private currentVersion = 0;
  private currentFileSetVersion = 0;
  /** A file came or went in the staged changes: the file-set version moves when they are published. */
  private fileSetStaged = false;

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

  filesReferencing(name: string): readonly string[] {
    return this.tables.filesReferencing(name);
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
    if (index.symbolError !== undefined) this.reportSymbolError(index);
    // The same file under another relPath (the roots changed, e.g. a subfolder became a root).
    const movedFrom = this.relPathByAbs.get(index.absPath);
    if (movedFrom !== undefined && movedFrom !== index.relPath) this.remove(movedFrom);
    this.unresolved.add(index.relPath);
    if (!before) this.fileSetChanged(index.relPath, 'added');
    this.byRelPath.set(index.relPath, index);
    this.relPathByAbs.set(index.absPath, index.relPath);
    this.tables.replace(before, index);
    this.pending.push(before ? { relPath: index.relPath, before, after: index } : { relPath: index.relPath, after: index });
    return true;
  }

  /** Once per file and error: an open document fails again at every edit. */
  private reportSymbolError(index: FileIndex): void {
    const key = `${index.absPath}\0${index.symbolError}`;
    if (this.symbolErrorsReported.has(key)) return;
    this.symbolErrorsReported.add(key);
    this.logger.warn(`${index.relPath}: indexed as text only, its definitions and imports could not be read ` +
      `(${index.symbolError}); please report the file's shape as a bug`);
  }

  /** Stage the removal of a file; returns whether it was indexed. */
  remove(relPath: string): boolean {
    const before = this.byRelPath.get(relPath);
    if (!before) return false;
    this.byRelPath.delete(relPath);
    this.relPathByAbs.delete(before.absPath);
    this.tables.replace(before, undefined);
    this.dependents.delete(relPath);
    this.fileSetChanged(relPath, 'removed');
    this.pending.push({ relPath, before });
    return true;
  }

  private fileSetChanged(relPath: string, change: 'added' | 'removed'): void {
    this.fileSetChanges.add(relPath);
    if (change === 'added') this.fileSet.added(relPath);
    else this.fileSet.removed(relPath);
    this.fileSetStaged = true;
  }

  /**
   * Publish staged changes: bump the version, resolve the staged files' imports and re-resolve
   * those that files appearing or disappearing can change (unless `resolveImports` is false: a
   * bulk load resolves once at its end), notify. Re-resolution updates ImportRecords of unchanged
   * files in place; it does not emit changes.
   */
  commit(resolveImports = true): FileChange[] {
    // Files a bulk load published with their imports unresolved now resolve: what retrieval finds
    // through imports moved as if the file set had, so the file-set version moves.
    if (resolveImports && this.resolveStagedImports()) this.fileSetStaged = true;
    const changes = this.pending;
    if (changes.length === 0 && !this.fileSetStaged) return changes;
    this.pending = [];
    this.currentVersion++;
    // Moved here, not when staged: a reader between the two (a completion while a pass awaits
    // its next file read) would take the new version with the retrieval postings still old.
    if (this.fileSetStaged) this.currentFileSetVersion++;
    this.fileSetStaged = false;
    if (changes.length === 0) return changes;
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
    this.unresolved.clear();
    for (const file of this.byRelPath.values()) this.resolveImportsOf(file);
  }

  /**
   * Resolve the staged files' imports, then re-resolve the other imports the latest appearances
   * and disappearances can change (ImportDependents). True when the file set had changed.
   */
  private resolveStagedImports(): boolean {
    const staged = this.unresolved;
    this.unresolved = new Set();
    for (const relPath of staged) {
      const file = this.byRelPath.get(relPath);
      if (file) this.resolveImportsOf(file);
    }
    if (this.fileSetChanges.size === 0) return false;
    const affected = this.dependents.affectedBy(this.fileSetChanges);
    this.fileSetChanges.clear();
    for (const relPath of affected ?? this.byRelPath.keys()) {
      const file = staged.has(relPath) ? undefined : this.byRelPath.get(relPath);
      if (file) this.resolveImportsOf(file);
    }
    return true;
  }

  /**
   * A project file that import resolution reads (`go.mod`, `package.json`) changed on disk: read
   * it again and resolve every import (which ones it moves is the language's business).
   */
  projectFileChanged(): void {
    this.forgetProjectFiles();
    this.resolveAllImports();
  }

  /** Read project files again when resolution next needs them. */
  forgetProjectFiles(): void {
    this.fileSet.forgetProjectFiles();
  }

  private resolveImportsOf(file: FileIndex): void {
    const language = languageOfPath(file.relPath);
    if (!language) return;
    for (const record of file.imports) applyImportResolution(record, this.resolveSafely(language, record, file));
    // After resolving: a language may file an import under the key of what it resolved to.
    this.dependents.update(file);
  }

  /**
   * The language's resolution, or none when it throws (a bug, or a project file it cannot read):
   * one import must not stop the commit of every file staged with it. Said once per error.
   */
  private resolveSafely(language: CodeLanguage, record: ImportRecord, file: FileIndex): ImportResolution {
    try {
      return language.imports.resolve(record, file, this.fileSet);
    } catch (error) {
      const why = errorSummary(error);
      if (!this.resolutionErrorsReported.has(why)) {
        this.resolutionErrorsReported.add(why);
        this.logger.warn(`${file.relPath}: the import of ${record.module} left unresolved (${why}); please report it as a bug`);
      }
      return { nameTargets: record.names.map(() => undefined) };
    }
  }
}

/** Write a resolution into the record (and its names), clearing what no longer resolves. */
function applyImportResolution(record: ImportRecord, resolution: ImportResolution): void {
  if (resolution.resolvedPath === undefined) delete record.resolvedPath;
  else record.resolvedPath = resolution.resolvedPath;
  if (resolution.packageFiles === undefined) delete record.packageFiles;
  else record.packageFiles = resolution.packageFiles;
  record.names.forEach((name, i) => {
    const target = resolution.nameTargets[i];
    if (target === undefined) delete name.resolvedPath;
    else name.resolvedPath = target;
  });
}
