/**
 * Turns fetched Debian packages into {@link SourcePackage}s: the .py files under the package's
 * module roots, with paths relative to dist-packages (so a repository folder looks like a
 * checkout: `django/db/models/base.py`). The standard library comes from Debian's own
 * `libpython3.11-minimal` and `libpython3.11-stdlib` packages rather than the machine's
 * /usr/lib/python3.11, so the corpus does not depend on what happens to be installed.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { DIST_PACKAGES, fetchDebianPackage, type DebianPackage, type FetchOptions } from '../../bench/src/debianPackages.js';
import type { SourcePackage } from './corpusBuilder.js';

/** The repository name the standard library gets in the corpus. */
export const STDLIB_NAME = 'python3.11-stdlib';
/** Debian packages that together hold /usr/lib/python3.11. */
export const STDLIB_DEBS = ['libpython3.11-minimal', 'libpython3.11-stdlib'] as const;
const STDLIB_DIR = 'usr/lib/python3.11';

/** All regular .py files under `dir` (symlinks are not followed: they point outside the package). */
export async function listPythonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(current: string): Promise<void> {
    const entries = await readdir(current, { withFileTypes: true });
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '__pycache__') await walk(full);
      } else if (entry.isFile() && entry.name.endsWith('.py')) {
        out.push(full);
      }
    }
  }
  await walk(dir);
  return out.sort();
}

/** A fetched package's .py files, relative to its dist-packages. */
export async function packageSource(pkg: DebianPackage): Promise<SourcePackage> {
  const base = path.join(pkg.rootDir, DIST_PACKAGES);
  const files: string[] = [];
  for (const root of pkg.moduleRoots) {
    if (root.endsWith('.py')) files.push(root);
    else files.push(...(await listPythonFiles(root)));
  }
  return fromFiles(pkg.name, pkg.version, false, base, files);
}

/** The CPython 3.11 standard library, from Debian's two packages that hold it. */
export async function stdlibSource(options: FetchOptions = {}): Promise<SourcePackage> {
  const parts = await Promise.all(STDLIB_DEBS.map((name) => fetchDebianPackage(name, options)));
  const byRel = new Map<string, string>();
  for (const part of parts) {
    const base = path.join(part.rootDir, STDLIB_DIR);
    for (const file of await listPythonFiles(base).catch(() => [] as string[])) {
      byRel.set(path.relative(base, file).split(path.sep).join('/'), file);
    }
  }
  const version = parts.map((p) => `${p.name}=${p.version}`).join(',');
  return {
    name: STDLIB_NAME,
    version,
    stdlib: true,
    files: [...byRel.keys()].sort(),
    readFile: (rel) => readFile(byRel.get(rel)!),
  };
}

function fromFiles(name: string, version: string, stdlib: boolean, base: string, absolute: string[]): SourcePackage {
  const byRel = new Map(absolute.map((file) => [path.relative(base, file).split(path.sep).join('/'), file]));
  return { name, version, stdlib, files: [...byRel.keys()].sort(), readFile: (rel) => readFile(byRel.get(rel)!) };
}
