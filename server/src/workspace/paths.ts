/**
 * Path plumbing shared by discovery and the index: file URIs <-> absolute paths, workspace-relative
 * paths (always forward slashes) and containment checks that see through `..` and symlinks.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A workspace root: the path as the user gave it and its real path (symlinks resolved). */
export interface WorkspaceRoot {
  /** Absolute, normalised path as given; absolute paths of files are built from it. */
  path: string;
  /** Real path; containment checks compare real paths so symlinks cannot escape. */
  real: string;
}

/** Absolute path of a `file://` URI, or undefined for other schemes (`untitled:`, `vscode-notebook:`...). */
export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** `file://` URI of an absolute path. */
export function pathToUri(absPath: string): string {
  return pathToFileURL(absPath).href;
}

/** Forward-slash form of a relative path (the index's relPath convention on every platform). */
export function toPosixPath(relPath: string): string {
  return path.sep === '/' ? relPath : relPath.split(path.sep).join('/');
}

/** Lexical containment: is `child` equal to or below `parent`? Both are normalised first. */
export function isPathInside(child: string, parent: string): boolean {
  const rel = path.relative(path.resolve(parent), path.resolve(child));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** relPath of `absPath` under `root` (forward slashes), or undefined when it is not inside. */
export function relativeTo(root: string, absPath: string): string | undefined {
  if (!isPathInside(absPath, root)) return undefined;
  return toPosixPath(path.relative(path.resolve(root), path.resolve(absPath)));
}

/**
 * Real path of `absPath`; for a path that does not exist (yet), the real path of its nearest
 * existing ancestor joined with the rest, so a new file in a symlinked directory is still judged
 * by where it would really live.
 */
export async function resolveRealPath(
  absPath: string,
  realpathOf: (p: string) => Promise<string> = realpath,
): Promise<string> {
  const resolved = path.resolve(absPath);
  try {
    return await realpathOf(resolved);
  } catch {
    const parent = path.dirname(resolved);
    if (parent === resolved) return resolved;
    return path.join(await resolveRealPath(parent, realpathOf), path.basename(resolved));
  }
}

/** Synchronous twin of {@link resolveRealPath}, for the editor-buffer paths that must not await. */
export function resolveRealPathSync(absPath: string): string {
  const resolved = path.resolve(absPath);
  try {
    return realpathSync(resolved);
  } catch {
    const parent = path.dirname(resolved);
    if (parent === resolved) return resolved;
    return path.join(resolveRealPathSync(parent), path.basename(resolved));
  }
}

/** Does `absPath` (after `..` and symlink resolution) lie inside one of `roots`? */
export async function isInsideRoots(absPath: string, roots: readonly string[]): Promise<boolean> {
  const real = await resolveRealPath(absPath);
  for (const root of roots) {
    if (isPathInside(real, await resolveRealPath(root))) return true;
  }
  return false;
}

/** Resolve user-given root directories, dropping duplicates (same real path) but keeping order. */
export async function resolveRoots(roots: readonly string[]): Promise<WorkspaceRoot[]> {
  const result: WorkspaceRoot[] = [];
  for (const root of roots) {
    const given = path.resolve(root);
    const real = await resolveRealPath(given);
    if (!result.some((r) => r.real === real)) result.push({ path: given, real });
  }
  return result;
}

/**
 * The root a path belongs to and its relPath; the most specific root wins when roots nest.
 * A path that is lexically inside a root but whose real path escapes every root is outside.
 */
export function locateInRoots(
  absPath: string,
  roots: readonly WorkspaceRoot[],
  realPathOf: (p: string) => string = resolveRealPathSync,
): { root: WorkspaceRoot; relPath: string } | undefined {
  const real = realPathOf(absPath);
  if (!roots.some((root) => isPathInside(real, root.real))) return undefined;
  return bestMatch(roots, (root) => relativeTo(root.path, absPath)) ?? bestMatch(roots, (root) => relativeTo(root.real, real));
}

function bestMatch(
  roots: readonly WorkspaceRoot[],
  relOf: (root: WorkspaceRoot) => string | undefined,
): { root: WorkspaceRoot; relPath: string } | undefined {
  let best: { root: WorkspaceRoot; relPath: string } | undefined;
  for (const root of roots) {
    const relPath = relOf(root);
    // The shortest relPath means the deepest root: nested roots own their files.
    if (relPath !== undefined && (!best || relPath.length < best.relPath.length)) best = { root, relPath };
  }
  return best;
}
