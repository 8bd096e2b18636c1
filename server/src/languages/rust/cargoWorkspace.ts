/**
 * Crates of the workspace that a path's first segment can name: `use my_core::Config` in one
 * member of a Cargo workspace reaches another member's `src/lib.rs`. Found from Cargo.toml files
 * only (read with a TOML parser; one that does not parse counts as absent):
 *
 * - the path dependencies of the packages above the importing file (`my-core = { path =
 *   "../my-core" }`), named in code by their library's name, or by their key when renamed
 *   (`core2 = { path = "../core", package = "my-core" }` is `core2`);
 * - the packages in directories above the importing file (a test or example naming its own
 *   package);
 * - the workspace root's `[workspace] members`: plain paths, and `dir/*` globs, where the member
 *   directory is guessed from the crate name (`crates/*` holds `my_core` in `crates/my_core` or
 *   `crates/my-core`). Other globs are not followed.
 */
import * as path from 'node:path';
import { objectOf, parseToml, stringOf, stringsOf } from '../configFiles.js';
import type { ImportingFile, WorkspaceFiles } from '../language.js';
import { dirOf, joinPath } from './moduleFiles.js';

/** Crates that ship with the compiler: never a workspace member, so no Cargo.toml is read for them. */
const TOOLCHAIN_CRATES: ReadonlySet<string> = new Set(['std', 'core', 'alloc', 'proc_macro', 'test']);

/** Dependency tables a crate's code can `use` from (build scripts' own aside). */
const DEPENDENCY_TABLES = ['dependencies', 'dev-dependencies'];

/** The `src/lib.rs` of the workspace crate that code calls `crateName`, if any. */
export function workspaceCrateRoot(crateName: string, from: ImportingFile, files: WorkspaceFiles): string | undefined {
  if (TOOLCHAIN_CRATES.has(crateName)) return undefined;
  const dependency = pathDependencyRoot(crateName, from, files);
  if (dependency !== undefined) return dependency;
  for (const dir of candidateDirectories(crateName, from, files)) {
    const manifest = files.projectFile(from, joinPath(dir, 'Cargo.toml'));
    if (manifest === undefined || libraryName(manifest) !== crateName) continue;
    const lib = joinPath(dir, 'src/lib.rs');
    if (files.has(lib)) return lib;
  }
  return undefined;
}

/** A path dependency that code calls `crateName`, of a package above the importer (the nearest first). */
function pathDependencyRoot(crateName: string, from: ImportingFile, files: WorkspaceFiles): string | undefined {
  for (const dir of directoriesAbove(from.relPath)) {
    const manifest = files.projectFile(from, joinPath(dir, 'Cargo.toml'));
    for (const dependency of manifest === undefined ? [] : pathDependencies(manifest)) {
      const crateDir = path.posix.normalize(joinPath(dir, dependency.dir)).replace(/^\.$|\/$/g, '');
      if (crateDir === '..' || crateDir.startsWith('../')) continue; // Outside the workspace.
      const target = files.projectFile(from, joinPath(crateDir, 'Cargo.toml'));
      const codeName = dependency.renamed || target === undefined ? dependency.key.replace(/-/g, '_') : libraryName(target);
      const lib = joinPath(crateDir, 'src/lib.rs');
      if (codeName === crateName && files.has(lib)) return lib;
    }
  }
  return undefined;
}

/** Package directories that may hold the crate: those above the importer, then the workspace members. */
function candidateDirectories(crateName: string, from: ImportingFile, files: WorkspaceFiles): string[] {
  const dirs = directoriesAbove(from.relPath);
  const rootManifest = files.projectFile(from, 'Cargo.toml');
  for (const member of rootManifest === undefined ? [] : workspaceMembers(rootManifest)) {
    if (member.endsWith('/*')) {
      const base = member.slice(0, -2);
      dirs.push(joinPath(base, crateName), joinPath(base, crateName.replace(/_/g, '-')));
    } else if (!member.includes('*')) {
      dirs.push(member.replace(/^\.\/|\/$/g, ''));
    }
  }
  return [...new Set(dirs)];
}

/** The importing file's directory and each one above it, the workspace root (`''`) last. */
function directoriesAbove(relPath: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirOf(relPath); dir !== ''; dir = dirOf(dir)) dirs.push(dir);
  dirs.push('');
  return dirs;
}

/** The name code uses for a package's library: `[lib] name`, else `[package] name` with `-` as `_`. */
export function libraryName(manifest: string): string | undefined {
  const toml = parseToml(manifest);
  const name = stringOf(objectOf(toml?.lib)?.name) ?? stringOf(objectOf(toml?.package)?.name);
  return name?.replace(/-/g, '_');
}

/** The `members` of `[workspace]`, as written (`crates/*`, `tools/gen`). */
export function workspaceMembers(manifest: string): string[] {
  return stringsOf(objectOf(parseToml(manifest)?.workspace)?.members);
}

/** A dependency on a crate by its directory (`foo = { path = "../foo" }`). */
export interface PathDependency {
  key: string;
  /** As written, relative to the manifest's directory. */
  dir: string;
  /** `package = "…"` names the crate: code then calls it by `key`. */
  renamed: boolean;
}

/** The path dependencies of a manifest's dependency tables, in the order written. */
export function pathDependencies(manifest: string): PathDependency[] {
  const toml = parseToml(manifest);
  const found: PathDependency[] = [];
  for (const table of DEPENDENCY_TABLES) {
    for (const [key, spec] of Object.entries(objectOf(toml?.[table]) ?? {})) {
      const dir = stringOf(objectOf(spec)?.path);
      if (dir !== undefined) found.push({ key, dir, renamed: stringOf(objectOf(spec)?.package) !== undefined });
    }
  }
  return found;
}
