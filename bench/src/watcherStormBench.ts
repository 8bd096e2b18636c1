/**
 * Watcher-storm benchmark (issue 22): a workspace of N files with 15 imports each; then 200
 * files created and 200 deleted, one watcher event each, as the server applies them. Prints the
 * wall time of each storm.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/watcherStormBench.js [--files 2000] [--events 200]
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';

const IMPORTS = 15;

function moduleSource(i: number, files: number): string {
  const imports = Array.from({ length: IMPORTS }, (_, k) => `from pkg${(i + k) % 20}.mod${(i * 7 + k) % files} import name${k}`);
  return [...imports, '', `def function_${i}(x):`, `    return x + ${i}`, ''].join('\n');
}

async function main(): Promise<void> {
  const options = new Command().option('--files <n>', 'workspace files', Number, 2000).option('--events <n>', 'files created, then deleted', Number, 200)
    .parse().opts<{ files: number; events: number }>();
  const root = mkdtempSync(path.join(os.tmpdir(), 'storm-'));
  try {
    for (let p = 0; p < 20; p++) {
      mkdirSync(path.join(root, `pkg${p}`));
      writeFileSync(path.join(root, `pkg${p}`, '__init__.py'), '');
    }
    for (let i = 0; i < options.files; i++) writeFileSync(path.join(root, `pkg${i % 20}`, `mod${i}.py`), moduleSource(i, options.files));
    const index = await WorkspaceIndex.create();
    let started = performance.now();
    await index.indexRoots([root]);
    console.log(`indexed ${options.files} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const created = Array.from({ length: options.events }, (_, i) => path.join(root, `pkg${i % 20}`, `mod${options.files + i}.py`));
    created.forEach((file, i) => writeFileSync(file, moduleSource(options.files + i, options.files)));
    started = performance.now();
    for (const file of created) await index.upsertFromDisk(file);
    console.log(`${options.events} created: ${((performance.now() - started) / 1000).toFixed(2)} s`);
    started = performance.now();
    for (const file of created) {
      unlinkSync(file);
      index.remove(file);
    }
    console.log(`${options.events} deleted: ${((performance.now() - started) / 1000).toFixed(2)} s`);
    index.dispose();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
