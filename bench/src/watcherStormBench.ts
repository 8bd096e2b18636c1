/**
 * Watcher-storm benchmark (issue 22): a workspace of N files with 15 imports each; then 200
 * files created and 200 deleted, one watcher event each, as the server applies them. Prints the
 * wall time of each storm.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/watcherStormBench.js [--files 2000] [--events 200]
 */
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import { writeStormFiles, writeStormWorkspace } from './stormWorkspace.js';

async function main(): Promise<void> {
  const options = new Command().option('--files <n>', 'workspace files', Number, 2000).option('--events <n>', 'files created, then deleted', Number, 200)
    .parse().opts<{ files: number; events: number }>();
  const root = mkdtempSync(path.join(os.tmpdir(), 'storm-'));
  try {
    writeStormWorkspace(root, options.files);
    const index = await WorkspaceIndex.create();
    let started = performance.now();
    await index.indexRoots([root]);
    console.log(`indexed ${options.files} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const created = writeStormFiles(root, options.files, options.events);
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
