/**
 * The indexed files as import resolution queries them (languages/language.ts `WorkspaceFiles`):
 * membership, the files of a directory (Go imports name directories), and the few project files
 * resolution reads from disk (`go.mod`, `package.json`, `tsconfig.json`), cached until the
 * watcher reports a change to one of them or the workspace is indexed again.
 */
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import type { ImportingFile, WorkspaceFiles } from '../languages/language.js';
import { readContainedFileSync } from '../workspace/discoveryFs.js';
import { isPathInside } from '../workspace/paths.js';

/** Project files larger than this are not configuration: they are not read. */
const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

export class IndexedFileSet implements WorkspaceFiles {
  private readonly byDirectory = new Map<string, string[]>();
  private readonly projectFiles = new Map<string, string | undefined>();
  /** Each root's real path: a project file is read only when it really is inside its root. */
  private readonly realRoots = new Map<string, string>();

  constructor(private readonly hasIndexed: (relPath: string) => boolean) {}

  has(relPath: string): boolean {
    return this.hasIndexed(relPath);
  }

  inDirectory(dir: string): readonly string[] {
    return this.byDirectory.get(dir) ?? [];
  }

  /**
   * A project file under `from`'s root. Resolution follows what project files say (`extends`,
   * `replace`, `use`, path dependencies), and they may point outside the workspace, which is
   * never read (docs/reliability.md, "Security"): such paths, and symlinks leading out, give
   * undefined, as an absent file does.
   */
  projectFile(from: ImportingFile, relPath: string): string | undefined {
    // Under the root's real path: what the kernel reports having opened is compared with it.
    const root = this.realRoot(rootDirOf(from));
    const file = path.join(root, ...relPath.split('/'));
    if (!isPathInside(file, root)) return undefined;
    if (!this.projectFiles.has(file)) this.projectFiles.set(file, readContainedFileSync(file, root, MAX_PROJECT_FILE_BYTES));
    return this.projectFiles.get(file);
  }

  private realRoot(root: string): string {
    let real = this.realRoots.get(root);
    if (real === undefined) {
      try {
        real = realpathSync(root);
      } catch {
        real = root;
      }
      this.realRoots.set(root, real);
    }
    return real;
  }

  /** A file entered the index. */
  added(relPath: string): void {
    const dir = dirOf(relPath);
    const files = this.byDirectory.get(dir) ?? [];
    const at = sortedIndex(files, relPath);
    if (files[at] !== relPath) files.splice(at, 0, relPath);
    this.byDirectory.set(dir, files);
  }

  /** A file left the index. */
  removed(relPath: string): void {
    const dir = dirOf(relPath);
    const files = this.byDirectory.get(dir);
    const at = files ? sortedIndex(files, relPath) : -1;
    if (!files || files[at] !== relPath) return;
    files.splice(at, 1);
    if (files.length === 0) this.byDirectory.delete(dir);
  }

  /** Forget what was read of project files: one changed on disk, or the workspace is read again. */
  forgetProjectFiles(): void {
    this.projectFiles.clear();
    this.realRoots.clear();
  }
}

function sortedIndex(files: readonly string[], relPath: string): number {
  let low = 0;
  let high = files.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (files[mid]! < relPath) low = mid + 1;
    else high = mid;
  }
  return low;
}

function dirOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash === -1 ? '' : relPath.slice(0, slash);
}

/** The root directory: absPath with relPath taken off its end. */
function rootDirOf(from: ImportingFile): string {
  let root = from.absPath;
  for (let i = from.relPath.split('/').length; i > 0; i--) root = path.dirname(root);
  return root;
}
