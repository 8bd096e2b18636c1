/**
 * Editor windows sharing one model host, as real servers over stdio (issue 49): the second window
 * starts no model of its own, a window killed leaves the others answering, and a host killed in
 * the middle of two windows' completions is replaced at their next request.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { listHosts } from '../../server/src/model/childProcess/hostConnection.js';
import { createTempWorkspace, tinyModelSettings, type TempWorkspace } from './fixtureWorkspace.js';
import type { RawLspClient } from './rawLspClient.js';
import { complete, startSession, touch } from './serverSession.js';
import { isRunning } from '../support/testHosts.js';

let workspace: TempWorkspace;
let hosts: string;
const clients: RawLspClient[] = [];

beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-shared-host-');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  rmSync(hosts, { recursive: true, force: true });
});

afterAll(() => workspace?.dispose());

/** What a failed assertion shows: the window's log and the hosts' (a race between them is otherwise invisible). */
function logsOf(window: RawLspClient): string {
  const hostLogs = readdirSync(hosts).filter((name) => name.endsWith('.log')).map((name) => `== ${name}\n${readFileSync(path.join(hosts, name), 'utf8')}`);
  return [`== the window's log (end)`, window.stderr.slice(-3000), ...hostLogs].join('\n');
}

/** A window: a server on the workspace with the tiny model, its hosts in this test's folder. */
async function openWindow(): Promise<RawLspClient> {
  const settings = tinyModelSettings(workspace.modelPath, { policy: 'none', modelHostIdleSeconds: 0 });
  const client = await startSession(workspace, settings, { env: { REPOSHAPLEY_MODEL_HOST_DIR: hosts } });
  clients.push(client);
  return client;
}

/** A fresh completion (the document edited first, so no cache answers it) and how long it took. */
async function completeAfterEdit(client: RawLspClient, version: number): Promise<{ outcome?: string; ms: number }> {
  touch(client, workspace.probeUri, version);
  const started = performance.now();
  const { trace } = await complete(client, workspace.probeUri);
  return { outcome: trace?.outcome, ms: performance.now() - started };
}

test('a second window loads no model of its own; killing one window leaves the other answering', async () => {
  hosts = mkdtempSync(path.join(os.tmpdir(), 'shared-host-lsp-'));
  const first = await openWindow();
  expect((await completeAfterEdit(first, 2)).outcome).toBe('ok');
  const second = await openWindow();
  expect((await completeAfterEdit(second, 2)).outcome).toBe('ok');
  const [host] = first.childPids();
  expect(host).toBeDefined();
  expect(second.childPids()).toEqual([]);
  expect(await listHosts(hosts)).toMatchObject([{ pid: host, clients: 2, model: workspace.modelPath }]);

  first.child.kill('SIGKILL');
  await first.exited;
  expect((await completeAfterEdit(second, 3)).outcome).toBe('ok');
  expect(isRunning(host!)).toBe(true);
  expect(second.stderr).not.toMatch(/model process .*(killed|ended)/);
}, 120_000);

test('the host killed while two windows complete: each answers again within 10 s of its next request', async () => {
  hosts = mkdtempSync(path.join(os.tmpdir(), 'shared-host-lsp-'));
  const windows = [await openWindow(), await openWindow()];
  for (const window of windows) expect((await completeAfterEdit(window, 2)).outcome).toBe('ok');
  const [host] = windows[0]!.childPids();

  // Both ask; the host dies under them. Whatever they answer (empty), they answer.
  const inFlight = windows.map((window) => completeAfterEdit(window, 3));
  process.kill(host!, 'SIGKILL');
  await Promise.all(inFlight);

  for (const [i, window] of windows.entries()) {
    let next = await completeAfterEdit(window, 4);
    // The first request after the death may come before the reload began; the next one is served.
    if (next.outcome !== 'ok') next = await completeAfterEdit(window, 5);
    expect(next.outcome, `window ${i + 1}\n${logsOf(window)}`).toBe('ok');
    expect(next.ms, `window ${i + 1}`).toBeLessThan(10_000);
    expect(window.alive).toBe(true);
  }
  const [replacement] = await listHosts(hosts);
  expect(replacement?.pid).not.toBe(host);
  expect(replacement?.clients).toBe(2);
}, 120_000);
