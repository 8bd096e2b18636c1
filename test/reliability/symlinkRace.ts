/**
 * The symlink-swap race of issue 22, on demand (60 s; not in CI): a local process swaps a
 * workspace folder between a real directory and a symlink to an outside folder while watcher
 * events name a file inside it. strace -y records, for every read(), the file its descriptor
 * really is; the count of reads of outside files must be 0. (Opens of the outside file can
 * happen: the server opens first and then checks what it opened, and closes it unread.)
 *
 *   npx tsc -p tsconfig.json && node dist/test/reliability/symlinkRace.js [--seconds 60]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { writeTinyModel } from '../support/tinyModel.js';
import { RawLspClient } from './rawLspClient.js';

async function main(): Promise<void> {
  const { seconds } = new Command().option('--seconds <n>', 'race duration', Number, 60).parse().opts<{ seconds: number }>();
  if (!existsSync('/usr/bin/strace')) throw new Error('strace is needed: apt-get install strace');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'symlink-race-'));
  const [root, outside, log] = [path.join(dir, 'ws'), path.join(dir, 'outside'), path.join(dir, 'strace.log')];
  mkdirSync(path.join(root, 'pkg'), { recursive: true });
  mkdirSync(path.join(outside, 'pkg'), { recursive: true });
  writeFileSync(path.join(root, 'pkg', 'mod.py'), 'def inside_function():\n    return 1\n');
  writeFileSync(path.join(outside, 'pkg', 'mod.py'), 'def SECRET_OUTSIDE_FUNCTION():\n    return 2\n');
  const model = await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), contextLength: 2048 });
  const client = RawLspClient.server({
    env: { REPOSHAPLEY_LOG: 'warn' },
    wrapper: ['/usr/bin/strace', '-f', '-qq', '-y', '-e', 'trace=read,pread64', '-o', log],
  });
  try {
    const settings = { modelPath: model.path, threads: 1, maxTokens: 4 };
    client.configuration = settings;
    await client.initialize(root, settings);
    await client.waitIndexed();
    const uri = pathToFileURL(path.join(root, 'pkg', 'mod.py')).href;
    let swaps = 0;
    let events = 0;
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      // Swap the folder for a symlink to the outside one, and back.
      renameSync(path.join(root, 'pkg'), path.join(root, 'pkg-real'));
      symlinkSync(path.join(outside, 'pkg'), path.join(root, 'pkg'));
      client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 2 }] });
      await new Promise((resolve) => setTimeout(resolve, 1 + (swaps % 3)));
      unlinkSync(path.join(root, 'pkg'));
      renameSync(path.join(root, 'pkg-real'), path.join(root, 'pkg'));
      client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 2 }] });
      await new Promise((resolve) => setTimeout(resolve, 1 + (swaps % 2)));
      swaps++;
      events += 2;
    }
    await client.within('shutdown', client.request('shutdown').answer, 60_000);
    client.notify('exit');
    await client.exited;
    const lines = readFileSync(log, 'utf8').split('\n');
    const outsideReads = lines.filter((line) => /^\d+\s+p?read(64)?\(\d+<[^>]*\/outside\//.test(line));
    const insideReads = lines.filter((line) => /^\d+\s+p?read(64)?\(\d+<[^>]*\/ws\/pkg/.test(line));
    console.log(JSON.stringify({ seconds, swaps, watcherEvents: events, readsOfWorkspaceFile: insideReads.length, readsOfOutsideFiles: outsideReads.length }));
    if (outsideReads.length > 0) {
      console.log(outsideReads.slice(0, 5).join('\n'));
      process.exitCode = 1;
    }
  } finally {
    await client.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
