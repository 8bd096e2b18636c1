/** Where things are in this repository, from the bench's sources or its build in dist/. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest directory up whose package.json is this project's. */
export function findRepoRoot(start = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'reposhapley') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no reposhapley package.json above ${start}`);
  }
}

/** The repository root. */
export const REPO_ROOT = findRepoRoot();

/** The built server the bench drives, as editors run it (`npm run build` makes it). */
export const SERVER_MAIN_JS = path.join(REPO_ROOT, 'dist', 'server', 'src', 'main.js');

/** Where the benchmark package lists are: `packages.txt` (Python), `packages-<language>.txt`. */
export const PACKAGE_LISTS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'bench');

/** The benchmark package list (Python's). */
export const DEFAULT_PACKAGE_LIST = path.join(PACKAGE_LISTS_DIR, 'packages.txt');

/** Where reports go (gitignored). */
export const REPORTS_DIR = path.join(REPO_ROOT, 'bench', 'reports');
