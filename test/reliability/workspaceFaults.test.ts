/**
 * Workspace files deleted, renamed and made unreadable while the workspace is being indexed.
 * In-process: the index's injectable fs port fails at random (every error code discovery may
 * meet, and errors with no code at all) and deletes files under the walk. Over stdio: the built
 * server indexes 600 files while a third of them are deleted, renamed or chmod 000; it runs as
 * user `nobody` when the tests run as root, so the modes bite.
 */
import { chmodSync, chownSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import { nodeDiscoveryFs, type DiscoveryFs } from '../../server/src/workspace/discoveryFs.js';
import { createTempWorkspace, tinyModelSettings, type TempWorkspace } from './fixtureWorkspace.js';
import { Random } from './random.js';
import { RawLspClient } from './rawLspClient.js';
import { complete, openDocument, unprivileged } from './serverSession.js';

let workspace: TempWorkspace;
const clients: RawLspClient[] = [];
beforeEach(async () => {
  workspace = await createTempWorkspace('reposhapley-wsfaults-');
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  workspace.dispose();
});

/** A module whose one function has a name found nowhere else. */
function moduleText(i: number): string {
  const filler = Array.from({ length: 40 }, (_, k) => `def helper_${k}(a, b):\n    return a * ${k} + b\n`).join('\n');
  return `"""Module ${i}."""\n\n\ndef unique_marker_${i}(value):\n    return value + ${i}\n\n\n${filler}\nCONSTANT_${i} = ${i}\n`;
}

const ERROR_CODES = ['EACCES', 'EPERM', 'ENOENT', 'EIO', 'EMFILE', 'ELOOP', 'EISDIR', 'ENOTDIR', 'ESTALE', undefined];

/** An fs port that fails one call in `rate` with a random error and deletes files under the walk. */
function hostileFs(random: Random, rate: number, failedReads: Set<string>, deleted: Set<string>): DiscoveryFs {
  const fail = (what: string): never => {
    const code = random.pick(ERROR_CODES);
    const error = code ? Object.assign(new Error(`${code}: injected on ${what}`), { code }) : new Error(`injected failure on ${what}`);
    throw error;
  };
  return {
    readdir: async (dir) => (random.chance(1 / rate) ? fail(dir) : nodeDiscoveryFs.readdir(dir)),
    stat: async (p) => (random.chance(1 / rate) ? fail(p) : nodeDiscoveryFs.stat(p)),
    realpath: async (p) => (random.chance(1 / rate) ? fail(p) : nodeDiscoveryFs.realpath(p)),
    readFile: async (file) => {
      if (file.endsWith('.py') && random.chance(1 / rate)) {
        unlinkSync(file);
        deleted.add(file);
      } else if (random.chance(1 / rate)) {
        failedReads.add(file);
        fail(file);
      }
      return nodeDiscoveryFs.readFile(file);
    },
  };
}

test.each([1, 2, 3, 4, 5])('index seed %i: random fs failures and deletions mid-walk are skips; a clean pass afterwards indexes what is there', async (seed) => {
  for (let i = 0; i < 150; i++) workspace.write(`pkg${i % 7}/sub${i % 3}/m${i}.py`, moduleText(i));
  const random = new Random(seed);
  const failedReads = new Set<string>();
  const deleted = new Set<string>();
  const index = await WorkspaceIndex.create({ fs: hostileFs(random, 12, failedReads, deleted), yieldEvery: 5 });
  try {
    const result = await index.indexRoots([workspace.root]);
    expect(result.kind).toBe('ok');
    const indexed = new Set([...index.files()].map((f) => f.absPath));
    for (const file of [...failedReads, ...deleted]) expect(indexed.has(file), file).toBe(false);
    expect(result.skipped.length).toBeGreaterThan(0);

    const clean = await WorkspaceIndex.create();
    await clean.indexRoots([workspace.root]);
    const onDisk = readdirSync(workspace.root, { recursive: true }).filter((f) => String(f).endsWith('.py'));
    expect([...clean.files()]).toHaveLength(onDisk.length);
    clean.dispose();
  } finally {
    index.dispose();
  }
});

/** What happens to file i while the server indexes: a third of the files are hit. */
function fate(i: number): 'kept' | 'deleted' | 'renamed' | 'unreadable' {
  return (['deleted', 'renamed', 'unreadable', 'kept', 'kept', 'kept', 'kept', 'kept', 'kept'] as const)[i % 9]!;
}

const bulkFile = (i: number): string => `bulk/d${i % 10}/m${i}.py`;
const renamedFile = (i: number): string => bulkFile(i).replace(/m(\d+)\.py$/, 'renamed_$1.py');

/** Deletes, renames and chmods files under the running walk, and removes one whole directory (d9). */
function mutateMidIndex(count: number): void {
  for (let i = count - 1; i >= 0; i--) {
    const file = path.join(workspace.root, bulkFile(i));
    if (fate(i) === 'deleted') unlinkSync(file);
    if (fate(i) === 'renamed') renameSync(file, path.join(workspace.root, renamedFile(i)));
    if (fate(i) === 'unreadable') chmodSync(file, 0);
  }
  mkdirSync(path.join(workspace.root, 'bulk', 'd0', 'late'), { mode: 0o755 });
  rmSync(path.join(workspace.root, 'bulk', 'd9'), { recursive: true, force: true });
}

/** What an editor's file watcher reports afterwards: the deletions and the new names. */
function watcherChanges(count: number): { uri: string; type: number }[] {
  const changes = [];
  for (let i = 0; i < count; i++) {
    if (fate(i) === 'deleted' || fate(i) === 'renamed' || i % 10 === 9) changes.push({ uri: workspace.uri(bulkFile(i)), type: 3 });
    if (fate(i) === 'renamed' && i % 10 !== 9) changes.push({ uri: workspace.uri(renamedFile(i)), type: 1 });
  }
  return changes;
}

/** bulk/ files retrieved for a call of unique_marker_i (a new text per attempt: never a cached answer). */
async function retrievedFor(client: RawLspClient, i: number, attempt: number): Promise<string[]> {
  const uri = workspace.uri(`probe_${i}.py`);
  const line = `result = unique_marker_${i}(`;
  openDocument(client, uri, `# attempt ${attempt}\n${line}`, attempt);
  const completion = await complete(client, uri, { line: 1, character: line.length });
  expect(completion.trace, `a fresh trace for file ${i}`).not.toBeNull();
  return [...new Set(completion.trace!.candidates.map((c) => c.relPath).filter((p) => p === bulkFile(i) || p === renamedFile(i)))];
}

/** Retries while the watcher events are applied (asynchronously), then expects `expected`. */
async function expectRetrieved(client: RawLspClient, i: number, expected: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  let attempt = 1;
  let paths = await retrievedFor(client, i, attempt);
  while (Date.now() < deadline && JSON.stringify(paths) !== JSON.stringify(expected)) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    paths = await retrievedFor(client, i, ++attempt);
  }
  expect(paths, `file ${i}`).toEqual(expected);
}

test('the server indexes 600 files while 200 are deleted, renamed or made unreadable, and serves what is left', async () => {
  const count = 600;
  for (let i = 0; i < count; i++) workspace.write(bulkFile(i), moduleText(i));
  // The server may run as nobody: it must reach the scratch directory and the model.
  const dirs = readdirSync(workspace.dir, { recursive: true, withFileTypes: true }).filter((e) => e.isDirectory());
  for (const dir of [workspace.dir, ...dirs.map((e) => path.join(e.parentPath, e.name))]) chmodSync(dir, 0o755);
  chmodSync(workspace.modelPath, 0o644);
  const wrapper = unprivileged();
  // The model hosts' folder must be the server's user's own (hostEndpoint.ts refuses any other).
  const hosts = path.join(workspace.dir, 'model-hosts');
  mkdirSync(hosts, { mode: 0o700 });
  if (wrapper.length > 0) chownSync(hosts, 65_534, 65_534);
  const client = RawLspClient.server({ wrapper, env: { HOME: workspace.dir, REPOSHAPLEY_LOG: 'info', REPOSHAPLEY_MODEL_HOST_DIR: hosts } });
  clients.push(client);
  const settings = tinyModelSettings(workspace.modelPath, { policy: 'full' });
  client.configuration = settings;
  await client.initialize(workspace.root, settings);
  await client.waitFor('indexing to start', () => client.statusStates().includes('indexing'));
  mutateMidIndex(count);
  await client.waitIndexed();
  client.notify('workspace/didChangeWatchedFiles', { changes: watcherChanges(count) });

  await expectRetrieved(client, 3, [bulkFile(3)]); // kept
  await expectRetrieved(client, 31, [bulkFile(31)]); // kept
  await expectRetrieved(client, 1, [renamedFile(1)]); // renamed
  await expectRetrieved(client, 0, []); // deleted
  await expectRetrieved(client, 19, []); // in the deleted directory d9
  if (wrapper.length > 0 || process.getuid?.() !== 0) await expectRetrieved(client, 2, []); // unreadable: never read
  expect(client.alive).toBe(true);
});
