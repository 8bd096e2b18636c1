/**
 * llama.cpp aborting (GGML_ASSERT, SIGABRT) under a real server over stdio (issue 22): at load,
 * and in the middle of a completion. The model host dies, the server does not: every completion
 * is answered, the user is told once what happened, the file is not loaded again until it
 * changes, and the host never outlives the server.
 */
import { copyFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, afterAll, expect, test } from 'vitest';
import { HOST_FAULT_VARIABLE } from '../../server/src/model/childProcess/hostProtocol.js';
import { LLAMA_ABORTS, writeAbortingModel } from '../support/llamaAborts.js';
import { createTempWorkspace, tinyModelSettings, type TempWorkspace } from './fixtureWorkspace.js';
import type { RawLspClient } from './rawLspClient.js';
import { complete, shownMessages, startSession, touch } from './serverSession.js';
import { isRunning } from '../support/testHosts.js';

let workspace: TempWorkspace;
let client: RawLspClient | undefined;

beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-crash-');
});

afterEach(async () => {
  await client?.dispose();
  client = undefined;
});

afterAll(() => workspace?.dispose());

/** How many times a model host died: the server logs each death once. */
function hostDeaths(session: RawLspClient): number {
  return session.stderr.split('\n').filter((line) => /the model process was killed by SIGABRT.*; its last lines:/.test(line)).length;
}

test.each(LLAMA_ABORTS)('a model llama.cpp aborts on while loading (%s): answered, named once, loaded once', async (name, changes, assertion) => {
  const file = await writeAbortingModel(workspace.modelPath, path.join(workspace.dir, 'aborts-at-load.gguf'), changes);
  client = await startSession(workspace, tinyModelSettings(file));
  for (let version = 2; version < 6; version++) {
    expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
    touch(client, workspace.probeUri, version);
  }
  expect(client.alive).toBe(true);
  const named = shownMessages(client).filter((m) => m.includes(file));
  expect(named).toHaveLength(1);
  expect(named[0]).toMatch(assertion);
  expect(named[0]).toMatch(/llama\.cpp stopped while loading .* SIGABRT/);
  expect(hostDeaths(client)).toBe(1);
}, 120_000);

test('a model host aborting mid-completion: the completion is answered, the model set aside until its file changes', async () => {
  const file = path.join(workspace.dir, 'aborts-at-generate.gguf');
  copyFileSync(workspace.modelPath, file);
  client = await startSession(workspace, tinyModelSettings(file, { policy: 'none' }), { env: { [HOST_FAULT_VARIABLE]: 'abort-at-generate' } });
  let version = 2;
  expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
  expect(client.alive).toBe(true);
  await client.waitFor('the crash to be reported', () => shownMessages(client!).some((m) => m.includes('stopped working')));
  expect(shownMessages(client).find((m) => m.includes('stopped working'))).toMatch(/killed by SIGABRT\. It is not loaded again until its file changes/);
  expect(client.statusStates().at(-1)).toBe('no-model');

  for (let i = 0; i < 3; i++) {
    touch(client, workspace.probeUri, version++);
    expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
  }
  expect(hostDeaths(client)).toBe(1);

  // The file is replaced (pulled or exported again): loaded anew at the next completion, once
  // the retry check (every 2 s) sees it. This host aborts again, as the fault is still set.
  copyFileSync(workspace.modelPath, `${file}.new`);
  renameSync(`${file}.new`, file);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  touch(client, workspace.probeUri, version++);
  expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
  await client.waitFor('the second crash', () => hostDeaths(client!) === 2);
  expect(client.alive).toBe(true);
}, 120_000);

test('a model host with no idle time ends with its last server, even when that server is killed', async () => {
  client = await startSession(workspace, tinyModelSettings(workspace.modelPath, { policy: 'none', modelHostIdleSeconds: 0 }));
  expect((await complete(client, workspace.probeUri)).trace?.outcome).toBe('ok');
  const hosts = client.childPids();
  expect(hosts).toHaveLength(1);
  client.child.kill('SIGKILL');
  await client.exited;
  const deadline = performance.now() + 10_000;
  while (isRunning(hosts[0]!) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(isRunning(hosts[0]!)).toBe(false);
}, 120_000);
