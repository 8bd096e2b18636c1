/**
 * Resolves a Go import path to a package directory of the workspace, as the go command would
 * for the modules the workspace holds:
 *
 * - the modules visible from the importing file: every `go.mod` in its directory and the
 *   directories above it (nearest first: nested modules), the nearest one's local `replace`
 *   targets, and the modules a `go.work` above it `use`s;
 * - an import path `<module>/<sub>` names `<module's directory>/<sub>`; the longest module path
 *   that prefixes the import and holds the package wins;
 * - without any go.mod or go.work (GOPATH-era trees, snippets), the longest suffix of the import
 *   path that is a workspace directory holding Go files;
 * - a path whose first element has no dot is the standard library's (unless a module of the
 *   workspace is named so: `module myapp`), and never resolves.
 *
 * The package is its non-test `.go` files (`packageFiles`); `resolvedPath` is the first of them.
 */
import * as path from 'node:path';
import type { ImportRecord, ImportResolution, ImportingFile, WorkspaceFiles } from '../language.js';
import { joinModuleDir, readGoMod, readGoWork } from './goModules.js';

/** A module of the workspace: its path and its directory (relPath, '' for the root). */
interface VisibleModule {
  modulePath: string;
  dir: string;
}

/** Resolve one import to its package's files. */
export function resolveGoImport(record: ImportRecord, from: ImportingFile, files: WorkspaceFiles): ImportResolution {
  const modules = visibleModules(from, files);
  const packageFiles = modules.length > 0 ? moduleFiles(record.module, modules, files) : suffixFiles(record.module, files);
  if (packageFiles.length === 0) return { nameTargets: [] };
  return { resolvedPath: packageFiles[0], nameTargets: [], packageFiles };
}

/** The non-test Go files directly in `dir`, sorted. */
export function goPackageFiles(dir: string, files: WorkspaceFiles): string[] {
  return files.inDirectory(dir).filter((relPath) => relPath.endsWith('.go') && !relPath.endsWith('_test.go')).sort();
}

/** Modules whose path prefixes the import, longest first (nearest first among equals: the sort is stable). */
function moduleFiles(importPath: string, modules: VisibleModule[], files: WorkspaceFiles): string[] {
  const matching = modules
    .filter((m) => importPath === m.modulePath || importPath.startsWith(`${m.modulePath}/`))
    .sort((a, b) => b.modulePath.length - a.modulePath.length);
  for (const { modulePath, dir } of matching) {
    const packageDir = joinModuleDir(dir, importPath.slice(modulePath.length + 1));
    const found = packageDir === undefined ? [] : goPackageFiles(packageDir, files);
    if (found.length > 0) return found;
  }
  return [];
}

/** The longest suffix of the import path that is a package directory; never the standard library's. */
function suffixFiles(importPath: string, files: WorkspaceFiles): string[] {
  if (isStandardLibrary(importPath)) return [];
  const parts = importPath.split('/');
  for (let start = 0; start < parts.length; start++) {
    const found = goPackageFiles(parts.slice(start).join('/'), files);
    if (found.length > 0) return found;
  }
  return [];
}

/** `fmt`, `net/http`: the go command reserves paths without a dot in their first element. */
export function isStandardLibrary(importPath: string): boolean {
  return !importPath.split('/', 1)[0]!.includes('.');
}

/** The modules the importing file sees, in order of preference. */
function visibleModules(from: ImportingFile, files: WorkspaceFiles): VisibleModule[] {
  const modules: VisibleModule[] = [];
  let goWork: { dir: string; content: string } | undefined;
  let nearest = true;
  for (const dir of ancestorDirs(from.relPath)) {
    const goMod = files.projectFile(from, joinRel(dir, 'go.mod'));
    if (goMod !== undefined) {
      modules.push(...goModModules(goMod, dir, nearest));
      nearest = false;
    }
    const work = goWork ? undefined : files.projectFile(from, joinRel(dir, 'go.work'));
    if (work !== undefined) goWork = { dir, content: work };
  }
  if (goWork) modules.push(...workModules(goWork.dir, goWork.content, from, files));
  return modules;
}

/** A go.mod's own module and, for the importing file's own (nearest) go.mod, its local replacements. */
function goModModules(content: string, dir: string, isNearest: boolean): VisibleModule[] {
  const goMod = readGoMod(content);
  const modules: VisibleModule[] = goMod.modulePath ? [{ modulePath: goMod.modulePath, dir }] : [];
  if (!isNearest) return modules;
  for (const replacement of goMod.replacements) {
    const target = joinModuleDir(dir, replacement.dir);
    if (target !== undefined) modules.push({ modulePath: replacement.modulePath, dir: target });
  }
  return modules;
}

/** The modules of a go.work's `use` directories (each named by its own go.mod). */
function workModules(workDir: string, content: string, from: ImportingFile, files: WorkspaceFiles): VisibleModule[] {
  const modules: VisibleModule[] = [];
  for (const use of readGoWork(content)) {
    const dir = joinModuleDir(workDir, use);
    const goMod = dir === undefined ? undefined : files.projectFile(from, joinRel(dir, 'go.mod'));
    const modulePath = goMod === undefined ? undefined : readGoMod(goMod).modulePath;
    if (modulePath) modules.push({ modulePath, dir: dir! });
  }
  return modules;
}

/** `a/b/c.go` -> ['a/b', 'a', '']. */
function ancestorDirs(relPath: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.posix.dirname(relPath); ; dir = path.posix.dirname(dir)) {
    dirs.push(dir === '.' ? '' : dir);
    if (dir === '.' || dir === '/' || dir === '') return dirs;
  }
}

function joinRel(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}
