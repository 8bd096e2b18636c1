/**
 * Where a Rust import points. A record's module path is walked segment by segment from its
 * start (`crate`: the crate root; `self`: the importing file's module; `super`: its parent; a
 * plain name: a child module of the importing module, a module declared in the crate root, or a
 * workspace crate's `src/lib.rs`), going into child module files as long as they exist. The
 * last file reached is `resolvedPath`; segments left over name items or inline modules in it.
 * When the whole path reached files, a name that is itself a module file gets its own path
 * (`use crate::net::{tcp, Addr}` gives `net/tcp.rs` for `tcp`, nothing for `Addr`).
 *
 * Not resolved: external crates (`std`, anything from crates.io), `#[path]` attributes,
 * macro-generated modules, and modules of `tests/common/mod.rs`-style files shared by several
 * crate roots (their root is not known from file names).
 */
import type { ImportingFile, ImportRecord, ImportResolution, WorkspaceFiles } from '../language.js';
import { workspaceCrateRoot } from './cargoWorkspace.js';
import { childModule, crateRootOf, parentModule, type HasFile } from './moduleFiles.js';

/** Where the walk stands: the module file reached and the segments still to walk. */
interface WalkStart {
  file: string;
  rest: readonly string[];
}

/** Resolve one record (see the header). */
export function resolveModulePath(record: ImportRecord, from: ImportingFile, files: WorkspaceFiles): ImportResolution {
  const unresolved: ImportResolution = { nameTargets: record.names.map(() => undefined) };
  const has: HasFile = (relPath) => files.has(relPath);
  const root = crateRootOf(from.relPath, has);
  const start = walkStart(record.module.split('::'), from, root, files);
  if (!start) return unresolved;
  const walked = walkModules(start, root, has);
  if (!walked) return unresolved;
  // A record without names is the module itself (`mod util;`): it must be a file of its own.
  if (record.names.length === 0 && !walked.complete) return unresolved;
  const nameTargets = record.names.map(({ name }) =>
    walked.complete && name !== '*' ? childModule(walked.file, name, has) : undefined);
  return { resolvedPath: walked.file, nameTargets };
}

/** The module file the path's first segment names, and the segments after it. */
function walkStart(segments: readonly string[], from: ImportingFile, root: string | undefined, files: WorkspaceFiles): WalkStart | undefined {
  const [first, ...rest] = segments;
  const has: HasFile = (relPath) => files.has(relPath);
  if (first === undefined) return undefined;
  if (first === 'crate') return root === undefined ? undefined : { file: root, rest };
  if (first === 'self') return { file: from.relPath, rest };
  if (first === 'super') return { file: from.relPath, rest: segments };
  if (first === '') {
    // `::name` names an external crate (2018 edition): only a workspace crate can be it.
    const crate = rest[0] === undefined ? undefined : workspaceCrateRoot(rest[0], from, files);
    return crate === undefined ? undefined : { file: crate, rest: rest.slice(1) };
  }
  // A plain name: the importing module's child (2018 paths), the crate root's (2015), a workspace crate.
  const child = childModule(from.relPath, first, has) ?? (root === undefined ? undefined : childModule(root, first, has));
  const file = child ?? workspaceCrateRoot(first, from, files);
  return file === undefined ? undefined : { file, rest };
}

/**
 * Into child module files while they exist. `super` above the crate root (or above a file whose
 * parent is not known) fails the walk; a segment with no file stops it (the rest are items).
 */
function walkModules(start: WalkStart, root: string | undefined, has: HasFile): { file: string; complete: boolean } | undefined {
  let file = start.file;
  for (let i = 0; i < start.rest.length; i++) {
    const segment = start.rest[i]!;
    if (segment === 'self') continue;
    const next = segment === 'super' ? parentModule(file, root, has) : childModule(file, segment, has);
    if (next === undefined) return segment === 'super' ? undefined : { file, complete: false };
    file = next;
  }
  return { file, complete: true };
}
