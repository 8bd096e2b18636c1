/**
 * Rust's module tree on disk, as far as file names tell it: which files are crate roots, where a
 * module's child modules live, and which file is a module's parent. Module `a` declared in
 * `src/lib.rs` is `src/a.rs` or `src/a/mod.rs`; its child `b` is `src/a/b.rs` or `src/a/b/mod.rs`.
 * `#[path = "…"]` attributes and inline modules (`mod a { … }`) are not files and are not followed.
 */

/** Whether a path names a file, as the workspace index knows it. */
export type HasFile = (relPath: string) => boolean;

/** Cargo's target directories whose `.rs` files are each a crate root (`tests/it.rs`). */
const TARGET_DIRECTORIES: ReadonlySet<string> = new Set(['tests', 'examples', 'benches']);

export function dirOf(relPath: string): string {
  const slash = relPath.lastIndexOf('/');
  return slash === -1 ? '' : relPath.slice(0, slash);
}

export function baseName(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1);
}

export function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/**
 * Whether a file is a crate root by its path alone: `lib.rs`, `main.rs`, `src/bin/x.rs`,
 * `build.rs`, `tests/x.rs`, `examples/x.rs`, `benches/x.rs`. The last four only outside any
 * `src/` directory, where `tests/` and the like are ordinary module directories.
 */
export function isCrateRootFile(relPath: string): boolean {
  const name = baseName(relPath);
  if (name === 'lib.rs' || name === 'main.rs') return true;
  const parts = relPath.split('/');
  const dirName = parts[parts.length - 2];
  if (dirName === 'bin' && parts[parts.length - 3] === 'src') return true;
  if (parts.includes('src')) return false;
  return name === 'build.rs' || (dirName !== undefined && TARGET_DIRECTORIES.has(dirName));
}

/** Where the child modules of the module in `file` live: beside a crate root or `mod.rs`, else in `a/` for `a.rs`. */
export function childDirOf(file: string): string {
  if (isCrateRootFile(file) || baseName(file) === 'mod.rs') return dirOf(file);
  return joinPath(dirOf(file), baseName(file).replace(/\.rs$/, ''));
}

/** The file of child module `name` of the module in `file`: `name.rs` or `name/mod.rs`. */
export function childModule(file: string, name: string, has: HasFile): string | undefined {
  const dir = childDirOf(file);
  const flat = joinPath(dir, `${name}.rs`);
  if (has(flat)) return flat;
  const nested = joinPath(dir, `${name}/mod.rs`);
  return has(nested) ? nested : undefined;
}

/**
 * The crate root of a file: the file itself when it is one, else the nearest `lib.rs` or
 * `main.rs` in a directory above it. `lib.rs` wins over `main.rs`: a package with both declares
 * its modules in the library. (A root such as `tests/it.rs` keeps its modules beside it, where
 * several roots may share them: `tests/common/mod.rs` has no root to be found.)
 */
export function crateRootOf(relPath: string, has: HasFile): string | undefined {
  if (isCrateRootFile(relPath)) return relPath;
  for (let dir = dirOf(relPath); ; dir = dirOf(dir)) {
    for (const name of ['lib.rs', 'main.rs']) {
      if (has(joinPath(dir, name))) return joinPath(dir, name);
    }
    if (dir === '') return undefined;
  }
}

/** The module that `super` names from the module in `file`; undefined above the crate root. */
export function parentModule(file: string, root: string | undefined, has: HasFile): string | undefined {
  if (file === root || isCrateRootFile(file)) return undefined;
  const dir = dirOf(childDirOf(file));
  if (root !== undefined && childDirOf(root) === dir) return root;
  const nested = joinPath(dir, 'mod.rs');
  if (has(nested)) return nested;
  return dir !== '' && has(`${dir}.rs`) ? `${dir}.rs` : undefined;
}
