/**
 * Where the repository is inside an unpacked Debian package, per language: the place Debian
 * installs that language's sources, narrowed to the package's own project. A package without
 * one is reported with the reason, never guessed at.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CodeLanguage } from '../../server/src/languages/language.js';
import { VENDORED_DIR_NAMES } from '../../server/src/workspace/pathRules.js';

/** A package's repository root, or why it has none. */
export type RepositoryRoot = { kind: 'ok'; root: string } | { kind: 'skip'; reason: string };

/** Where Debian puts Go sources: `<import path>/` below it. */
export const GOCODE_SRC = 'usr/share/gocode/src';
/** Where Debian puts Rust crates: `<crate>-<version>/` below it. */
export const CARGO_REGISTRY = 'usr/share/cargo/registry';
/** Where Debian puts Node.js modules (older packages: usr/lib/nodejs). */
export const NODEJS_DIRS: readonly string[] = ['usr/share/nodejs', 'usr/lib/nodejs'];

/**
 * Go: the import path's directory under gocode/src, e.g. github.com/spf13/cobra. From src the
 * chain of single subdirectories is followed down to the first directory with `.go` files or a
 * go.mod; where a directory has several, the one named after the package
 * (golang-github-spf13-cobra-dev) is taken: -dev packages may carry sources of other import
 * paths. Only directories with Go files of their own count: an old spelling kept as symlinks
 * (github.com/Sirupsen/logrus -> ../sirupsen/logrus) is no second import path.
 */
export async function goRepositoryRoot(rootDir: string, packageName: string): Promise<RepositoryRoot> {
  const src = path.join(rootDir, GOCODE_SRC);
  const wanted = goNameKey(packageName);
  const elements: string[] = [];
  let dir = src;
  for (;;) {
    const entries = await entriesOf(dir);
    if (!entries) return { kind: 'skip', reason: `no Go sources in ${GOCODE_SRC}` };
    if (entries.some((e) => e.isFile() && (e.name.endsWith('.go') || e.name === 'go.mod'))) return { kind: 'ok', root: dir };
    const subdirs = await goSubdirectories(dir, entries);
    if (elements.length > 0 && importPathKey(elements) === wanted && subdirs.length > 0) return { kind: 'ok', root: dir };
    const next = subdirs.length === 1 ? subdirs : subdirs.filter((name) => isKeyPrefix(importPathKey([...elements, name]), wanted));
    if (next.length !== 1) {
      const where = path.relative(src, dir) || '.';
      return { kind: 'skip', reason: `no import path named after ${packageName} in ${GOCODE_SRC}/${where} (${subdirs.join(', ') || 'empty'})` };
    }
    elements.push(next[0]!);
    dir = path.join(dir, next[0]!);
  }
}

/** Subdirectories holding Go files (not through symlinks), sorted. */
async function goSubdirectories(dir: string, entries: readonly Dirent[]): Promise<string[]> {
  const names = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  const holding = await Promise.all(names.map((name) => holdsGoFiles(path.join(dir, name))));
  return names.filter((_, i) => holding[i]);
}

async function holdsGoFiles(dir: string): Promise<boolean> {
  for (const entry of (await entriesOf(dir)) ?? []) {
    if (entry.isFile() && entry.name.endsWith('.go')) return true;
    if (entry.isDirectory() && (await holdsGoFiles(path.join(dir, entry.name)))) return true;
  }
  return false;
}

/** `golang-github-spf13-cobra-dev` -> `github-spf13-cobra`, `…-go-toml.v2-dev` -> `…-go-toml-v2`. */
function goNameKey(packageName: string): string {
  return normalizedKey(packageName.replace(/^golang-/, '').replace(/-dev$/, ''));
}

/** Debian's name for an import path: the host without its top-level domain, `/` as `-`. */
function importPathKey(elements: readonly string[]): string {
  const [host, ...rest] = elements;
  const hostName = host && host.includes('.') ? host.slice(0, host.lastIndexOf('.')) : host;
  return normalizedKey([hostName, ...rest].join('-'));
}

function normalizedKey(name: string): string {
  return name.toLowerCase().replace(/[./_]/g, '-');
}

function isKeyPrefix(key: string, of: string): boolean {
  return of === key || of.startsWith(`${key}-`);
}

/**
 * Rust: the crate's `<crate>-<version>/` in the cargo registry, the one named after the package
 * (librust-futures-util-dev -> futures-util-0.3.21) when there are several.
 */
export async function rustRepositoryRoot(rootDir: string, packageName: string): Promise<RepositoryRoot> {
  const registry = path.join(rootDir, CARGO_REGISTRY);
  const crates = (await entriesOf(registry))?.filter((e) => e.isDirectory()).map((e) => e.name).sort() ?? [];
  const wanted = packageName.replace(/^librust-/, '').replace(/-dev$/, '').replace(/\+.*$/, '');
  const named = crates.filter((dir) => crateOfDir(dir) === wanted);
  const chosen = crates.length === 1 ? crates : named;
  if (chosen.length === 1) return { kind: 'ok', root: path.join(registry, chosen[0]!) };
  return { kind: 'skip', reason: crates.length === 0 ? `no crate in ${CARGO_REGISTRY}` : `no single crate named ${wanted} in ${CARGO_REGISTRY} (${crates.join(', ')})` };
}

/** `futures-util-0.3.21` -> `futures-util`; `sha-1-0.10.0` -> `sha-1`; `_` read as `-`, as Debian names them. */
function crateOfDir(dir: string): string {
  const match = /^(.+?)-(\d+\.\d+\.\d+\S*)$/.exec(dir);
  return (match ? match[1]! : dir).toLowerCase().replace(/_/g, '-');
}

/** JavaScript: `usr/share/nodejs/<name>/` for node-<name>. */
export async function nodeRepositoryRoot(rootDir: string, packageName: string): Promise<RepositoryRoot> {
  const name = packageName.replace(/^node-/, '');
  const seen: string[] = [];
  for (const dir of NODEJS_DIRS) {
    const entries = await entriesOf(path.join(rootDir, dir));
    if (entries?.some((e) => e.isDirectory() && e.name === name)) return { kind: 'ok', root: path.join(rootDir, dir, name) };
    seen.push(...(entries ?? []).map((e) => `${dir}/${e.name}`));
  }
  return { kind: 'skip', reason: `no ${name}/ in ${NODEJS_DIRS.join(' or ')}${seen.length > 0 ? ` (${seen.join(', ')})` : ''}` };
}

/**
 * How many source files of `language` the tree holds that the index would read and a person
 * wrote: outside vendored and generated folders (dist/, build/, node_modules/) and not minified
 * bundles (`.min.js`). Zero means a package that ships only compiled output.
 */
export async function countSourceFiles(root: string, language: Pick<CodeLanguage, 'extensions'>): Promise<number> {
  const entries = (await entriesOf(root)) ?? [];
  let count = 0;
  for (const entry of entries) {
    const lower = entry.name.toLowerCase();
    if (entry.isDirectory() && !VENDORED_DIR_NAMES.has(entry.name)) count += await countSourceFiles(path.join(root, entry.name), language);
    else if (entry.isFile() && !/\.min\.[cm]?js$/.test(lower) && language.extensions.some((ext) => lower.endsWith(ext))) count++;
  }
  return count;
}

/** A directory's entries; undefined when it does not exist. */
async function entriesOf(dir: string): Promise<Dirent[] | undefined> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
