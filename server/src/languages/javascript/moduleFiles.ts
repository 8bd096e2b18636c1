/**
 * How a module path names files: the extensions Node and TypeScript try, directory index files,
 * and the keys that tell which imports a file's coming or going can move.
 */
import * as path from 'node:path';
import type { ImportRecord } from '../language.js';

/** Extensions tried, in order, after a path without one (TypeScript's sources before JavaScript's). */
export const MODULE_EXTENSIONS: readonly string[] = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

/**
 * The order for a JavaScript file's imports: Node loads `input.js`, never the `input.d.ts` a
 * package ships beside it for TypeScript users (postcss does, for every module).
 */
const JAVASCRIPT_EXTENSIONS: readonly string[] = ['.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.d.ts', '.mts', '.cts'];

/** The extensions to try for imports written in `importerRelPath`. */
export function extensionsFor(importerRelPath: string): readonly string[] {
  return /\.(m|c)?jsx?$/i.test(importerRelPath) ? JAVASCRIPT_EXTENSIONS : MODULE_EXTENSIONS;
}

/** Longest first, so `a.d.ts` loses `.d.ts` and not `.ts`. */
const STRIPPED_EXTENSIONS: readonly string[] = ['.d.ts', '.d.mts', '.d.cts', ...MODULE_EXTENSIONS.filter((ext) => ext !== '.d.ts')];

/**
 * TypeScript's ESM convention: `import './a.js'` names `a.ts` (the file it compiles to), and
 * likewise for `.mjs`/`.cjs`/`.jsx`.
 */
const SOURCE_OF_OUTPUT: Readonly<Record<string, readonly string[]>> = {
  '.js': ['.ts', '.tsx', '.d.ts'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts', '.d.mts'],
  '.cjs': ['.cts', '.d.cts'],
};

/** `a/b.d.ts` -> `a/b`; a path without a module extension stays as it is. */
export function stripModuleExtension(relPath: string): string {
  const lower = relPath.toLowerCase();
  const ext = STRIPPED_EXTENSIONS.find((candidate) => lower.endsWith(candidate));
  return ext ? relPath.slice(0, -ext.length) : relPath;
}

/**
 * The file a module path names, as Node and TypeScript look for it: the path itself, the
 * TypeScript source of a `.js` path, the path with each extension, then the directory's index.
 * `directoryOnly` for `.`, `..` and `dir/`, which Node reads as directories.
 */
export function moduleFile(
  modulePath: string, has: (relPath: string) => boolean, directoryOnly = false, extensions: readonly string[] = MODULE_EXTENSIONS,
): string | undefined {
  if (modulePath === '..' || modulePath.startsWith('../') || path.posix.isAbsolute(modulePath)) return undefined; // Outside the workspace.
  const target = modulePath === '.' || modulePath === '' ? '' : modulePath.replace(/\/$/, '');
  if (target !== '' && !directoryOnly) {
    if (has(target)) return target;
    const ext = path.posix.extname(target);
    const sources = (SOURCE_OF_OUTPUT[ext] ?? []).map((source) => target.slice(0, -ext.length) + source);
    const found = sources.find(has) ?? extensions.map((candidate) => target + candidate).find(has);
    if (found !== undefined) return found;
  }
  const index = target === '' ? 'index' : `${target}/index`;
  return extensions.map((candidate) => index + candidate).find(has);
}

/**
 * A file's key is its name without extension; an index file's key is its directory's name,
 * since imports name the directory (`./store` for `store/index.ts`). Index files at the root
 * keep `index`.
 */
export function keyOfFile(relPath: string): string {
  const stem = path.posix.basename(stripModuleExtension(relPath));
  if (stem !== 'index') return stem;
  const dir = path.posix.basename(path.posix.dirname(relPath));
  return dir === '' || dir === '.' ? 'index' : dir;
}

/**
 * Keys of the files an import could resolve to: the specifier's last segment without extension
 * (`./store.js` -> `store`, which is also `store/index.ts`'s key), the directory before an
 * explicit `/index`, `index` for `.` and `..` (the root's index; deeper ones only once resolved),
 * and the key of the file it resolved to, which covers bare specifiers that tsconfig `paths` or
 * a workspace package's `main` map to a file of another name.
 */
export function dependencyKeys(record: ImportRecord): string[] {
  const segments = record.module.split('/').filter((segment) => segment !== '');
  // `#config` names a file `config.*` as `./config` does.
  const last = segments.length > 0 ? stripModuleExtension(segments[segments.length - 1]!).replace(/^#/, '') : 'index';
  const keys = new Set<string>([last === '.' || last === '..' ? 'index' : last]);
  if (last === 'index' && segments.length > 1) keys.add(segments[segments.length - 2]!);
  if (record.resolvedPath !== undefined) keys.add(keyOfFile(record.resolvedPath));
  return [...keys];
}
