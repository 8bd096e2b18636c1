/**
 * Crates of the workspace that a path's first segment can name: `use my_core::Config` in one
 * member of a Cargo workspace reaches another member's `src/lib.rs`. Found from Cargo.toml files
 * only: the workspace root's `[workspace] members` (plain paths and `dir/*` globs, where the
 * member directory is guessed from the crate name) and the packages in directories above the
 * importing file (a test or example naming its own package). A line-based reading of the few
 * TOML keys this needs, not a TOML parser: inline tables and other globs are not followed.
 */
import type { ImportingFile, WorkspaceFiles } from '../language.js';
import { dirOf, joinPath } from './moduleFiles.js';

/** Crates that ship with the compiler: never a workspace member, so no Cargo.toml is read for them. */
const TOOLCHAIN_CRATES: ReadonlySet<string> = new Set(['std', 'core', 'alloc', 'proc_macro', 'test']);

/** The `src/lib.rs` of the workspace crate whose library is called `crateName`, if any. */
export function workspaceCrateRoot(crateName: string, from: ImportingFile, files: WorkspaceFiles): string | undefined {
  if (TOOLCHAIN_CRATES.has(crateName)) return undefined;
  for (const dir of candidateDirectories(crateName, from, files)) {
    const manifest = files.projectFile(from, joinPath(dir, 'Cargo.toml'));
    if (manifest === undefined || libraryName(manifest) !== crateName) continue;
    const lib = joinPath(dir, 'src/lib.rs');
    if (files.has(lib)) return lib;
  }
  return undefined;
}

/** Package directories that may hold the crate: those above the importer, then the workspace members. */
function candidateDirectories(crateName: string, from: ImportingFile, files: WorkspaceFiles): string[] {
  const dirs: string[] = [];
  for (let dir = dirOf(from.relPath); dir !== ''; dir = dirOf(dir)) dirs.push(dir);
  dirs.push('');
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

/** The name code uses for a package's library: `[lib] name`, else `[package] name` with `-` as `_`. */
export function libraryName(manifest: string): string | undefined {
  const sections = tomlSections(manifest);
  const name = stringValue(sections.get('lib'), 'name') ?? stringValue(sections.get('package'), 'name');
  return name?.replace(/-/g, '_');
}

/** The `members` of `[workspace]`, as written (`crates/*`, `tools/gen`). */
export function workspaceMembers(manifest: string): string[] {
  const body = tomlSections(manifest).get('workspace');
  const list = body && /^\s*members\s*=\s*\[([^\]]*)\]/m.exec(body);
  if (!list) return [];
  return [...list[1]!.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2]!);
}

/** Section name -> its text (the first of a name); arrays of tables (`[[bin]]`) are keyed `[bin]`. */
function tomlSections(manifest: string): Map<string, string> {
  const sections = new Map<string, string>();
  const headers = [...manifest.matchAll(/^[ \t]*(\[\[?)[ \t]*([A-Za-z0-9_.-]+)[ \t]*\]\]?[ \t]*(?:#.*)?$/gm)];
  headers.forEach((header, i) => {
    const name = header[1] === '[[' ? `[${header[2]!}]` : header[2]!;
    const end = i + 1 < headers.length ? headers[i + 1]!.index : manifest.length;
    if (!sections.has(name)) sections.set(name, manifest.slice(header.index + header[0].length, end));
  });
  return sections;
}

function stringValue(section: string | undefined, key: string): string | undefined {
  if (section === undefined) return undefined;
  return new RegExp(`^\\s*${key}\\s*=\\s*["']([^"']+)["']`, 'm').exec(section)?.[1];
}
