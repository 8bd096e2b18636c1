/**
 * Faults while serving: the model file deleted or truncated in place, the client vanishing
 * (stdin closed, stdout gone, its process gone) at any moment, an editor process the server may
 * not signal (another user), and a crash (SIGKILL) followed by a restart.
 * The server is the built one over stdio, with the tiny generated GGUF as its model.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createTempWorkspace, tinyModelSettings, type TempWorkspace } from './fixtureWorkspace.js';
import { RawLspClient } from './rawLspClient.js';
import { complete, shownMessages, startSession, touch, unprivileged } from './serverSession.js';

let workspace: TempWorkspace;
const clients: RawLspClient[] = [];
beforeEach(async () => {
  workspace = await createTempWorkspace('reposhapley-faults-');
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  workspace.dispose();
});

async function session(settings = tinyModelSettings('')): Promise<RawLspClient> {
  const client = await startSession(workspace, { ...settings, modelPath: workspace.modelPath });
  clients.push(client);
  return client;
}

function reconfigure(client: RawLspClient, patch: Record<string, unknown>): void {
  client.configuration = { ...(client.configuration as object), ...patch };
  client.notify('workspace/didChangeConfiguration', { settings: { reposhapley: client.configuration } });
}

describe('the model file', () => {
  test('deleted while serving: completions go on from memory; a reload names the missing file once; putting it back restores service', async () => {
    const client = await session();
    expect((await complete(client, workspace.probeUri)).trace?.outcome).toBe('ok');
    const bytes = readFileSync(workspace.modelPath);
    unlinkSync(workspace.modelPath);
    touch(client, workspace.probeUri, 2);
    expect((await complete(client, workspace.probeUri)).trace?.outcome).toBe('ok');

    reconfigure(client, { threads: 2 }); // a new key: the model is loaded again, and is gone
    await client.waitFor('the missing model to be reported', () => client.statusStates().includes('no-model'));
    for (let version = 3; version < 6; version++) {
      touch(client, workspace.probeUri, version);
      expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
    }
    expect(shownMessages(client).filter((m) => m.includes('not found'))).toHaveLength(1);

    writeFileSync(workspace.modelPath, bytes);
    reconfigure(client, { threads: 1 });
    touch(client, workspace.probeUri, 6);
    expect((await complete(client, workspace.probeUri)).trace?.outcome).toBe('ok');
    expect(client.alive).toBe(true);
  });

  test('truncated in place while serving: no SIGBUS; a reload reports the damaged file once', async () => {
    const client = await session();
    expect((await complete(client, workspace.probeUri)).trace?.outcome).toBe('ok');
    truncateSync(workspace.modelPath, 1000);
    for (let version = 2; version < 5; version++) {
      touch(client, workspace.probeUri, version);
      expect((await complete(client, workspace.probeUri)).trace?.outcome).toBe('ok');
    }
    reconfigure(client, { threads: 2 });
    await client.waitFor('the damaged model to be reported', () => client.statusStates().includes('no-model'));
    touch(client, workspace.probeUri, 5);
    expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
    expect(shownMessages(client).filter((m) => m.includes(workspace.modelPath))).toHaveLength(1);
    expect(client.alive).toBe(true);
  });
});

describe('the client vanishing', () => {
  test.each(['idle', 'indexing', 'completing'] as const)('stdin closed while %s: the server exits with 0 within seconds', async (moment) => {
    if (moment === 'indexing') {
      for (let i = 0; i < 400; i++) workspace.write(`bulk/m${i}.py`, `def f${i}(x):\n    return x * ${i}\n`.repeat(40));
    }
    const client = moment === 'indexing'
      ? RawLspClient.server({ env: { REPOSHAPLEY_LOG: 'info' } })
      : await session(tinyModelSettings('', { maxTokens: 1024, policy: 'full' }));
    clients.push(client);
    if (moment === 'indexing') {
      await client.initialize(workspace.root, tinyModelSettings(workspace.modelPath));
      await client.waitFor('indexing to start', () => client.statusStates().includes('indexing'));
    }
    if (moment === 'completing') {
      client.request('textDocument/inlineCompletion', { textDocument: { uri: workspace.probeUri }, position: { line: 7, character: 15 }, context: { triggerKind: 1 } });
    }
    const exit = await client.closeStdin(10_000);
    expect(exit).toEqual({ code: 0, signal: null });
  });

  test('the editor process named in initialize ends (stdin left open): the server exits with 0', async () => {
    const editor = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => editor.once('exit', resolve));
    const client = RawLspClient.server();
    clients.push(client);
    await client.initialize(undefined, { enabled: false }, 60_000, editor.pid!);
    const exit = await client.within('exit after the editor process ended', client.exited, 15_000);
    expect(exit).toEqual({ code: 0, signal: null });
  });

  test.skipIf(unprivileged().length === 0)('an editor process of another user (kill says EPERM) is alive: the server keeps serving', async () => {
    const client = RawLspClient.server({ wrapper: unprivileged() }); // as nobody, the editor (this process) as root
    clients.push(client);
    await client.initialize(undefined, { enabled: false }, 60_000, process.pid);
    // vscode-languageserver's watchdog checked every 3 s and exited with 1 at the first check.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    const { answer } = client.request('reposhapley/completionTrace', {});
    expect((await client.within('a request after the watchdog checks', answer)).error).toBeUndefined();
    expect(client.alive).toBe(true);
  });

  test('stdout closed by the client: the server notices at its next write and exits with 0', async () => {
    const client = await session();
    client.child.stdout!.destroy();
    touch(client, workspace.probeUri, 2);
    client.request('textDocument/inlineCompletion', { textDocument: { uri: workspace.probeUri }, position: { line: 7, character: 15 }, context: { triggerKind: 1 } });
    const exit = await client.within('exit after stdout closed', client.exited, 15_000);
    expect(exit).toEqual({ code: 0, signal: null });
  });
});

test('a crash (SIGKILL mid-completion) leaves nothing behind, and a restarted server serves at once', async () => {
  const before = listing(workspace.dir);
  const first = await session(tinyModelSettings('', { maxTokens: 1024 }));
  first.request('textDocument/inlineCompletion', { textDocument: { uri: workspace.probeUri }, position: { line: 7, character: 15 }, context: { triggerKind: 1 } });
  first.child.kill('SIGKILL');
  expect((await first.exited).signal).toBe('SIGKILL');
  expect(listing(workspace.dir)).toEqual(before);
  const second = await session();
  const completion = await complete(second, workspace.probeUri);
  expect(completion.trace?.outcome).toBe('ok');
  expect(completion.trace?.candidates.map((c) => c.relPath)).toContain('lib/helpers.py');
});

/** Every path under `dir`: a crashed server must not have left files (it writes none). */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
