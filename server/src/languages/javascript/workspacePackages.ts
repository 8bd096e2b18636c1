/**
 * Where a monorepo keeps its own packages, and which package a file belongs to: what bare
 * specifiers (`@acme/ui`) and subpath imports (`#utils/log`) need beyond tsconfig `paths`.
 *
 * - Workspace packages live where the root package.json's `workspaces` (npm, Yarn, Bun: an array,
 *   or `{ "packages": [...] }`) and pnpm-workspace.yaml's `packages` say, as globs (`apps/*`,
 *   `libs/**`, `tools/cli`); `packages/*` when neither says anything.
 * - A file's package is the nearest package.json at or above it; its `imports` field maps `#`
 *   specifiers as Node does.
 *
 * Packages are found by name, not by listing directories: a glob's `*` is taken to be the last
 * segment of the package name (`@acme/ui` in `libs/*` is looked for in `libs/ui`), and the
 * package.json there must carry that name. A package in a directory named otherwise is not found.
 */
import * as path from 'node:path';
import { objectOf, parseYaml, stringsOf } from '../configFiles.js';
import { readManifest, type PackageManifest, type ReadProjectFile } from './projectConfig.js';

/** Where workspace packages live when the root declares nothing (the common layout). */
const DEFAULT_PACKAGE_GLOBS = ['packages/*'];

/** The workspace globs of the root package.json and pnpm-workspace.yaml, negations left out. */
export function workspacePackageGlobs(read: ReadProjectFile): string[] {
  const manifest = readManifest('package.json', read);
  const pnpm = read('pnpm-workspace.yaml');
  const pnpmGlobs = pnpm === undefined ? [] : stringsOf(objectOf(parseYaml(pnpm))?.packages);
  const globs = [...(manifest?.workspaces ?? []), ...pnpmGlobs]
    .map((glob) => glob.replace(/^\.\//, '').replace(/\/+$/, ''))
    .filter((glob) => glob !== '' && !glob.startsWith('!'));
  return globs.length > 0 ? globs : DEFAULT_PACKAGE_GLOBS;
}

/**
 * The directories that could hold the package whose name ends in `last`: each glob with its one
 * wildcard segment (`*` or `**`) read as `last`, or the glob itself when it has none. Globs with
 * more than one wildcard segment are skipped.
 */
export function packageDirectories(globs: readonly string[], last: string): string[] {
  const dirs = new Set<string>();
  for (const glob of globs) {
    const segments = glob.split('/');
    const wildcards = segments.filter((segment) => segment.includes('*'));
    if (wildcards.length === 0) dirs.add(glob);
    else if (wildcards.length === 1 && (wildcards[0] === '*' || wildcards[0] === '**')) {
      dirs.add(segments.map((segment) => (segment.includes('*') ? last : segment)).join('/'));
    }
  }
  return [...dirs];
}

/** The package a file belongs to: the nearest package.json at or above its directory. */
export function enclosingPackage(fromRelPath: string, read: ReadProjectFile): { dir: string; manifest: PackageManifest } | undefined {
  for (let dir = path.posix.dirname(fromRelPath); ; dir = path.posix.dirname(dir)) {
    const base = dir === '.' ? '' : dir;
    const manifest = readManifest(base === '' ? 'package.json' : `${base}/package.json`, read);
    if (manifest) return { dir: base, manifest };
    if (base === '') return undefined;
  }
}
