/**
 * vitest global setup: builds dist/ (tsc) when any TypeScript source is newer than the built
 * server, so stdio tests spawn the current code. Type errors do not stop the build (tsc still
 * emits); `npx tsc --noEmit` is the type check.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopTestHosts } from './support/testHosts.js';
import { makeTestTempDir, removeTestTempDir } from './support/testTemp.js';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SOURCE_DIRS = ['shared', 'server/src', 'bench/src', 'models', 'test'];
const BUILT_MARKER = path.join(ROOT, 'dist', 'server', 'src', 'main.js');

function newestSourceMtime(dir: string): number {
  let newest = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'fixtures') newest = Math.max(newest, newestSourceMtime(full));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function builtMtime(): number {
  try {
    return statSync(BUILT_MARKER).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Runs tsc when the build is missing or older than a source file; makes the run's temporary
 * folder. The teardown stops the tests' model hosts and removes the folder.
 */
export default function setup(): () => void {
  makeTestTempDir();
  build();
  return teardown;
}

function teardown(): void {
  stopTestHosts();
  removeTestTempDir();
}

function build(): void {
  const sources = Math.max(...SOURCE_DIRS.map((dir) => newestSourceMtime(path.join(ROOT, dir))), statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs);
  if (builtMtime() >= sources) return;
  const result = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
    cwd: ROOT, encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write(`[globalSetup] tsc reported errors (output still emitted):\n${(result.stdout + result.stderr).slice(0, 4000)}\n`);
  }
}
