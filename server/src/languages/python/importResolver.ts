/**
 * Resolves import statements to workspace files, approximating what `sys.path` would do for the
 * layouts people actually have, using only the set of indexed relPaths (no I/O):
 *
 * - relative imports (`from ..x import y`) from the importing file's package;
 * - absolute imports searched, in order, from the workspace roots (relPath ''), from the parent
 *   of the importing file's top-level package (so `src/pkg/a.py` finds `pkg.b` in `src/`), from
 *   `src/`, and from the importing file's own directory (a script's directory is on sys.path);
 * - a root that is itself a package (root `.../dist-packages/requests` holding `__init__.py`):
 *   `requests.utils` inside it resolves to `utils.py`, the root directory's name standing for
 *   the package;
 * - `from pkg import sub` where `sub` is a submodule sets that name's own resolvedPath.
 *
 * relPaths of all roots share one namespace (the index keys files by relPath), so "each root"
 * is the single base ''.
 */
import * as path from 'node:path';
import type { ImportRecord, ImportResolution, ImportingFile } from '../language.js';

interface SearchBase {
  /** Directory (relPath, '' = root) the dotted path is relative to. */
  base: string;
  parts: string[];
}

/** Resolve one import; `hasFile(relPath)` says whether a workspace file exists. */
export function resolveImport(record: ImportRecord, from: ImportingFile, hasFile: (relPath: string) => boolean): ImportResolution {
  const dots = /^\.*/.exec(record.module)![0].length;
  const rest = record.module.slice(dots);
  const parts = rest === '' ? [] : rest.split('.');
  const candidates = dots > 0 ? relativeBase(dots, parts, from) : absoluteBases(parts, from, hasFile);
  const wantsNames = record.names.some((n) => n.name !== '*');
  for (const { base, parts: moduleParts } of candidates) {
    const resolvedPath = moduleFile(base, moduleParts, hasFile);
    const packageDir = joinRel(base, moduleParts.join('/'));
    const nameTargets = record.names.map((n) => (n.name === '*' ? undefined : moduleFile(packageDir, n.name.split('.'), hasFile)));
    const anyName = wantsNames && nameTargets.some((t) => t !== undefined);
    if (resolvedPath !== undefined || anyName) return resolvedPath === undefined ? { nameTargets } : { resolvedPath, nameTargets };
  }
  return { nameTargets: record.names.map(() => undefined) };
}

/** `from ..x import y` in `a/b/c.py`: one dot is `a/b`, each further dot one directory up. */
function relativeBase(dots: number, parts: string[], from: ImportingFile): SearchBase[] {
  let dir = dirOf(from.relPath);
  for (let i = 1; i < dots; i++) {
    if (dir === '') return []; // Beyond the top of the workspace.
    dir = dirOf(dir);
  }
  return [{ base: dir, parts }];
}

function absoluteBases(parts: string[], from: ImportingFile, hasFile: (relPath: string) => boolean): SearchBase[] {
  const bases: SearchBase[] = [{ base: '', parts }];
  const top = packageTop(dirOf(from.relPath), hasFile);
  if (top === '') {
    const rootName = path.basename(rootDirOf(from));
    if (parts[0] === rootName) bases.push({ base: '', parts: parts.slice(1) });
  } else if (top !== undefined) {
    bases.push({ base: dirOf(top), parts });
  }
  bases.push({ base: 'src', parts }, { base: dirOf(from.relPath), parts });
  return bases.filter((b, i) => bases.findIndex((o) => o.base === b.base && o.parts.join('.') === b.parts.join('.')) === i);
}

/** The outermost directory of the chain of packages (`__init__.py`) containing `dir`. */
function packageTop(dir: string, hasFile: (relPath: string) => boolean): string | undefined {
  let top: string | undefined;
  let current = dir;
  while (hasFile(joinRel(current, '__init__.py'))) {
    top = current;
    if (current === '') break;
    current = dirOf(current);
  }
  return top;
}

/** `base/a/b.py`, else `base/a/b/__init__.py`; no parts means the package `base` itself. */
function moduleFile(base: string, parts: readonly string[], hasFile: (relPath: string) => boolean): string | undefined {
  if (parts.some((p) => p === '')) return undefined;
  const modulePath = joinRel(base, parts.join('/'));
  if (parts.length > 0 && hasFile(`${modulePath}.py`)) return `${modulePath}.py`;
  const init = joinRel(modulePath, '__init__.py');
  return hasFile(init) ? init : undefined;
}

function joinRel(base: string, rest: string): string {
  if (base === '') return rest;
  return rest === '' ? base : `${base}/${rest}`;
}

function dirOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash === -1 ? '' : relPath.slice(0, slash);
}

/** The root directory: absPath with relPath taken off its end. */
function rootDirOf(from: ImportingFile): string {
  const depth = from.relPath.split('/').length;
  let root = from.absPath;
  for (let i = 0; i < depth; i++) root = path.dirname(root);
  return root;
}
