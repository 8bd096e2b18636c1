/**
 * The workspace of the watcher-storm benchmarks (issue 22): N modules in 20 packages, each with 15
 * imports of other modules, and the storm's new files written beside them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const PACKAGES = 20;
const IMPORTS = 15;

function moduleSource(i: number, files: number): string {
  const imports = Array.from({ length: IMPORTS }, (_, k) => `from pkg${(i + k) % PACKAGES}.mod${(i * 7 + k) % files} import name${k}`);
  return [...imports, '', `def function_${i}(x):`, `    return x + ${i}`, ''].join('\n');
}

/** Writes the `files` modules under `root` (created when missing). */
export function writeStormWorkspace(root: string, files: number): void {
  for (let p = 0; p < PACKAGES; p++) {
    mkdirSync(path.join(root, `pkg${p}`), { recursive: true });
    writeFileSync(path.join(root, `pkg${p}`, '__init__.py'), '');
  }
  for (let i = 0; i < files; i++) writeFileSync(path.join(root, `pkg${i % PACKAGES}`, `mod${i}.py`), moduleSource(i, files));
}

/** Writes `count` more modules (named `new<i>.py`) that import the workspace's; returns their paths. */
export function writeStormFiles(root: string, files: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const file = path.join(root, `pkg${i % PACKAGES}`, `new${i}.py`);
    writeFileSync(file, moduleSource(files + i, files));
    return file;
  });
}
