/**
 * The LSP layer over real stdio with a fake engine behind it: orchestration that needs slow,
 * abortable completions (supersession, cancellation), routing of every method, and robustness.
 * The real engine is exercised by stdioServer.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import type { CompletionList, InlineCompletionList } from 'vscode-languageserver-protocol';
import { ENGINE_STATS_METHOD } from './fakeServer.js';
import { FAKE_NO_MODEL_MESSAGE } from './fakeEngine.js';
import {
  completionStorm, FAKE_SERVER_JS, frame, FULL_CAPABILITIES, inlineParams, REPO_ROOT, startServer,
  type Cursor, type LspTestClient,
} from './lspTestClient.js';

const WORKSPACE = path.join(REPO_ROOT, 'test', 'fixtures', 'lsp-workspace');
const MAIN_PY = path.join(WORKSPACE, 'main.py');
const MAIN_URI = pathToFileURL(MAIN_PY).href;
const MAIN_TEXT = readFileSync(MAIN_PY, 'utf8');
/** After `print(square(2.0).` on the last line. */
const END_CURSOR: Cursor = { uri: MAIN_URI, line: 10, character: MAIN_TEXT.split('\n')[10].length };

interface EngineStats {
  completeCalls: number;
  prefillCalls: { uri: string; line: number; character: number }[];
  aborted: number;
  edits: unknown[][];
  fileEvents: unknown[][];
  settingsPatches: unknown[];
  documents: string[];
  settings: { debounceMs: number; policy: string };
}

const clients: LspTestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

function start(env: NodeJS.ProcessEnv = {}): LspTestClient {
  const client = startServer(FAKE_SERVER_JS, [], env);
  clients.push(client);
  return client;
}

async function startReady(env: NodeJS.ProcessEnv = {}, options: unknown = { completionCommand: 'reposhapley.trace' }) {
  const client = start(env);
  const init = await client.initialize(WORKSPACE, FULL_CAPABILITIES, options);
  await client.waitFor('status ready', () => client.received('reposhapley/status').some((s) => (s as { state: string }).state === 'ready'));
  await client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri: MAIN_URI, languageId: 'python', version: 1, text: MAIN_TEXT },
  });
  return { client, init };
}

function inline(client: LspTestClient, cursor: Cursor, triggerKind: 1 | 2 = 1): Promise<InlineCompletionList> {
  return client.connection.sendRequest<InlineCompletionList>('textDocument/inlineCompletion', inlineParams(cursor, triggerKind));
}

function stats(client: LspTestClient): Promise<EngineStats> {
  return client.connection.sendRequest<EngineStats>(ENGINE_STATS_METHOD);
}

describe('LSP layer over stdio (fake engine)', () => {
  test('initialize announces capabilities, registers watchers and reports indexing progress', async () => {
    const { client, init } = await startReady();
    expect(init.serverInfo?.name).toBe('reposhapley');
    expect(init.capabilities.textDocumentSync).toMatchObject({ openClose: true, change: 2 });
    expect(init.capabilities.inlineCompletionProvider).toBe(true);
    expect(init.capabilities.completionProvider).toBeUndefined();
    expect(JSON.stringify(client.registrations)).toContain('**/*.py');
    expect(JSON.stringify(client.registrations)).toContain('**/.gitignore');
    expect(JSON.stringify(client.registrations)).toContain('workspace/didChangeConfiguration');
    await client.waitFor('progress end', () => client.progress.some((p) => p.kind === 'end'));
    expect(client.progress[0].kind).toBe('begin');
    const ready = client.received('reposhapley/status').at(-1);
    expect(ready).toMatchObject({ state: 'ready', indexedFiles: 4 });
  });

  test('clients without inline completion are offered completion items', async () => {
    const client = start();
    const capabilities = { ...FULL_CAPABILITIES, textDocument: { synchronization: {} } };
    const init = await client.initialize(WORKSPACE, capabilities, { reposhapley: { debounceMs: 0 } });
    expect(init.capabilities.completionProvider?.triggerCharacters).toContain('.');
    await client.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri: MAIN_URI, languageId: 'python', version: 1, text: MAIN_TEXT },
    });
    const list = await client.connection.sendRequest<CompletionList>('textDocument/completion', {
      textDocument: { uri: MAIN_URI }, position: END_CURSOR, context: { triggerKind: 1 },
    });
    expect(list.isIncomplete).toBe(true);
    expect(list.items).toHaveLength(1);
    const expected = `completion_${END_CURSOR.line}_${END_CURSOR.character}`;
    expect(list.items[0]).toMatchObject({
      label: expected, insertTextFormat: 1,
      textEdit: { newText: expected, range: { start: { line: 10, character: END_CURSOR.character } } },
    });
    expect((await stats(client)).settings.debounceMs).toBe(0);
    // Inside a word (`print(squ|`) the item replaces the word with the word and its completion:
    // clients that filter by the word at the cursor (eglot) must find it there.
    const inWord = { line: 10, character: '    print(squ'.length };
    const word = await client.connection.sendRequest<CompletionList>('textDocument/completion', {
      textDocument: { uri: MAIN_URI }, position: inWord, context: { triggerKind: 1 },
    });
    const rest = `completion_${inWord.line}_${inWord.character}`;
    expect(word.items[0]).toMatchObject({
      label: `squ${rest}`,
      textEdit: { newText: `squ${rest}`, range: { start: { line: 10, character: '    print('.length }, end: inWord } },
    });
  });

  test('inline completion at the cursor, with its trace', async () => {
    const { client } = await startReady();
    const list = await inline(client, END_CURSOR);
    expect(list.items).toHaveLength(1);
    const [item] = list.items;
    expect(item.insertText).toBe(`completion_${END_CURSOR.line}_${END_CURSOR.character}`);
    expect(item.range).toEqual({ start: { line: 10, character: END_CURSOR.character }, end: { line: 10, character: END_CURSOR.character } });
    const traceId = item.command?.arguments?.[0] as string;
    expect(item.command?.command).toBe('reposhapley.trace');
    // The status carries the latency the outcome reported (the fake engine's 17 ms).
    await client.waitFor('status with latency', () => client.received('reposhapley/status').some((s) => (s as { lastLatencyMs?: number }).lastLatencyMs === 17));
    const trace = await client.connection.sendRequest<{ traceId: string; completion: string } | null>('reposhapley/completionTrace', { traceId });
    expect(trace?.completion).toBe(item.insertText);
    expect(await client.connection.sendRequest('reposhapley/completionTrace', {})).toMatchObject({ traceId });
    expect(await client.connection.sendRequest('reposhapley/completionTrace', { traceId: 'nope' })).toBeNull();
  });

  test('a repeated request is answered from the cache without the engine', async () => {
    const { client } = await startReady();
    const first = await inline(client, END_CURSOR);
    const second = await inline(client, END_CURSOR);
    expect(second).toEqual(first);
    expect((await stats(client)).completeCalls).toBe(1);
  });

  test('typing the ghost text shown is answered with the rest of it, without the engine', async () => {
    const { client } = await startReady();
    const shown = (await inline(client, END_CURSOR)).items[0]!.insertText as string;
    expect(shown).toBe(`completion_${END_CURSOR.line}_${END_CURSOR.character}`);
    let version = 2;
    const type = async (text: string, at: Cursor) => client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: MAIN_URI, version: version++ }, contentChanges: [{ range: { start: at, end: at }, text }],
    });
    await type('comp', END_CURSOR);
    const afterComp = { ...END_CURSOR, character: END_CURSOR.character + 4 };
    expect((await inline(client, afterComp)).items[0]!.insertText).toBe(shown.slice(4));
    await type('l', afterComp);
    expect((await inline(client, { ...afterComp, character: afterComp.character + 1 })).items[0]!.insertText).toBe(shown.slice(5));
    expect((await stats(client)).completeCalls).toBe(1);
    // Typing something the ghost text did not say asks the engine again.
    await type('Z', { ...afterComp, character: afterComp.character + 1 });
    await inline(client, { ...afterComp, character: afterComp.character + 2 });
    expect((await stats(client)).completeCalls).toBe(2);
  });

  test('a storm of cancelled and superseded requests is all answered; stale work never delays fresh', async () => {
    const { client } = await startReady({ FAKE_COMPLETE_DELAY_MS: '2000' });
    const storm = await completionStorm(client, END_CURSOR, 50);
    expect(storm.answers).toHaveLength(50);
    for (const answer of storm.answers) expect(answer).toEqual({ items: [] });
    const fresh = await inline(client, END_CURSOR);
    expect(fresh.items[0]?.insertText).toBe(`completion_${END_CURSOR.line}_${END_CURSOR.character}`);
  });

  test('automatic requests superseded during the debounce never reach the engine', async () => {
    const { client } = await startReady({}, { reposhapley: { debounceMs: 1000 } });
    const requests = Array.from({ length: 10 }, () => inline(client, END_CURSOR, 2));
    const answers = await Promise.all(requests);
    expect(answers.slice(0, 9)).toEqual(Array(9).fill({ items: [] }));
    expect(answers[9].items).toHaveLength(1);
    expect((await stats(client)).completeCalls).toBe(1);
  });

  test('incremental edits reach the engine and the cursor follows them', async () => {
    const { client } = await startReady();
    await client.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: MAIN_URI, version: 2 },
      contentChanges: [
        { range: { start: END_CURSOR, end: END_CURSOR }, text: 'perimeter())\n    x = ' },
        { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# header\n' },
      ],
    });
    const list = await inline(client, { uri: MAIN_URI, line: 12, character: 8 });
    expect(list.items[0]?.insertText).toBe('completion_12_8');
    const engine = await stats(client);
    expect(engine.edits).toHaveLength(1);
    expect(engine.edits[0]).toHaveLength(2);
  });

  test('reposhapley/cursor asks the engine to prefill there; malformed ones are dropped', async () => {
    const { client } = await startReady();
    await client.connection.sendNotification('reposhapley/cursor', { textDocument: { uri: MAIN_URI }, position: { line: 3, character: 4 } });
    await client.connection.sendNotification('reposhapley/cursor', { textDocument: { uri: MAIN_URI }, position: { line: -1, character: 0 } });
    await client.connection.sendNotification('reposhapley/cursor', { position: { line: 1, character: 0 } });
    await client.connection.sendNotification('reposhapley/cursor', null);
    // Messages are handled in order, so the stats request sees every notification before it.
    expect((await stats(client)).prefillCalls).toEqual([{ uri: MAIN_URI, line: 3, character: 4 }]);
    expect((await inline(client, END_CURSOR)).items).toHaveLength(1); // still answering
  });

  test('configuration: pushed settings apply; null settings are pulled', async () => {
    const { client } = await startReady();
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: { reposhapley: { policy: 'full' } } });
    client.configuration = { policy: 'none', bogus: true };
    await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
    // The pull is a round trip the test cannot await directly: ask until it has landed.
    let engine = await stats(client);
    for (let i = 0; i < 100 && engine.settingsPatches.length < 2; i++) engine = await stats(client);
    expect(engine.settingsPatches).toEqual([{ policy: 'full' }, { policy: 'none' }]);
  });

  test('an added workspace folder is indexed too', async () => {
    const { client } = await startReady();
    const added = path.join(REPO_ROOT, 'test', 'fixtures', 'lsp-workspace', 'pkg');
    await client.connection.sendNotification('workspace/didChangeWorkspaceFolders', {
      event: { added: [{ uri: pathToFileURL(added).href, name: 'pkg' }], removed: [] },
    });
    await client.waitFor('re-indexed with 7 files', () => client.received('reposhapley/status')
      .some((s) => (s as { state: string; indexedFiles?: number }).state === 'ready' && (s as { indexedFiles?: number }).indexedFiles === 7));
  });

  test('watched file changes reach the engine', async () => {
    const { client } = await startReady();
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [{ uri: pathToFileURL(path.join(WORKSPACE, 'pkg', 'new.py')).href, type: 1 }],
    });
    const engine = await stats(client);
    expect(engine.fileEvents).toEqual([[{ uri: pathToFileURL(path.join(WORKSPACE, 'pkg', 'new.py')).href, type: 'created' }]]);
  });

  test('a missing model is shown once and reported in the status', async () => {
    const { client } = await startReady({ FAKE_NO_MODEL: '1' });
    for (let i = 0; i < 3; i++) expect(await inline(client, END_CURSOR)).toEqual({ items: [] });
    await client.waitFor('no-model status', () => client.received('reposhapley/status').some((s) => (s as { state: string }).state === 'no-model'));
    const shown = client.received('window/showMessage') as { message: string }[];
    expect(shown.filter((m) => m.message === FAKE_NO_MODEL_MESSAGE)).toHaveLength(1);
  });

  test('malformed input leaves the server alive and answering', async () => {
    const { client } = await startReady();
    const { connection } = client;
    // One write, so the bad frames and the next request reach the server in the same chunk.
    client.writeRaw(frame('{"jsonrpc": "2.0", "id": 900, "method": ') + 'Content-Length: abc\r\n\r\n' +
      'junk glued to a header' + frame('{"hello": "not json-rpc"}'));
    await expect(connection.sendRequest('reposhapley/noSuchMethod', {})).rejects.toMatchObject({ code: -32601 });
    await connection.sendNotification('reposhapley/noSuchNotification', {});
    expect(await inline(client, { uri: 'file:///nowhere/never-opened.py', line: 0, character: 0 })).toEqual({ items: [] });
    expect(await inline(client, { uri: MAIN_URI, line: 999, character: 0 })).toEqual({ items: [] });
    expect(await inline(client, { uri: MAIN_URI, line: 0, character: 999 })).toEqual({ items: [] });
    expect(await connection.sendRequest('textDocument/inlineCompletion', {})).toEqual({ items: [] });
    expect(await connection.sendRequest('textDocument/inlineCompletion', { textDocument: { uri: MAIN_URI }, position: { line: -1, character: 'x' } })).toEqual({ items: [] });
    await connection.sendNotification('textDocument/didChange', { textDocument: { uri: MAIN_URI, version: 5 } });
    const list = await inline(client, END_CURSOR);
    expect(list.items).toHaveLength(1);
    expect(client.child.exitCode).toBeNull();
  });

  test('shutdown then exit ends with code 0', async () => {
    const { client } = await startReady();
    await client.connection.sendRequest('shutdown');
    await client.connection.sendNotification('exit');
    expect(await client.exitCode()).toBe(0);
  });

  test('stdin closing (the client vanished) ends the server with code 0', async () => {
    const { client } = await startReady({ FAKE_COMPLETE_DELAY_MS: '60000' });
    void inline(client, END_CURSOR).catch(() => {});
    client.child.stdin!.end();
    expect(await client.exitCode()).toBe(0);
  });

  test('exit without shutdown ends with code 1', async () => {
    const client = start();
    await client.initialize(WORKSPACE);
    await client.connection.sendNotification('exit');
    expect(await client.exitCode()).toBe(1);
  });
});
