/**
 * The built server (`node dist/server/src/main.js serve --stdio`) with the real engine, driven
 * over stdio as an editor drives it. Without a bundled model, completions are empty and the
 * missing model is shown exactly once; with one, they are well-formed items.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import type { InlineCompletionList } from 'vscode-languageserver-protocol';
import { findBundledModel } from '../../server/src/completion/modelChoice.js';
import {
  completionStorm, frame, inlineParams, MAIN_JS, REPO_ROOT, startServer, type Cursor, type LspTestClient,
} from './lspTestClient.js';

const ENGINE_SOURCE = path.join(REPO_ROOT, 'server', 'src', 'completion', 'createEngine.ts');
const WORKSPACE = path.join(REPO_ROOT, 'test', 'fixtures', 'lsp-workspace');
const MAIN_PY = path.join(WORKSPACE, 'main.py');
const MAIN_URI = pathToFileURL(MAIN_PY).href;
const MAIN_TEXT = readFileSync(MAIN_PY, 'utf8');
const END_CURSOR: Cursor = { uri: MAIN_URI, line: 10, character: MAIN_TEXT.split('\n')[10].length };
const HAS_MODEL = findBundledModel() !== undefined;

if (!existsSync(ENGINE_SOURCE)) {
  process.stderr.write(`stdioServer.test.ts skipped: ${ENGINE_SOURCE} does not exist yet (the real engine is not merged)\n`);
}

const clients: LspTestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

/** The real server, without a model from the environment (the bundled one, if any, still counts). */
function start(): LspTestClient {
  const client = startServer(MAIN_JS, ['serve', '--stdio'], { REPOSHAPLEY_MODEL: '', REPOSHAPLEY_LOG: 'debug' });
  clients.push(client);
  return client;
}

function statusStates(client: LspTestClient): string[] {
  return client.received('reposhapley/status').map((s) => (s as { state: string }).state);
}

async function startIndexed(): Promise<LspTestClient> {
  const client = start();
  await client.initialize(WORKSPACE);
  await client.waitFor('status ready or no-model', () => statusStates(client).some((s) => s === 'ready' || s === 'no-model'));
  await client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri: MAIN_URI, languageId: 'python', version: 1, text: MAIN_TEXT },
  });
  return client;
}

function inline(client: LspTestClient, cursor: Cursor): Promise<InlineCompletionList> {
  return client.connection.sendRequest<InlineCompletionList>('textDocument/inlineCompletion', inlineParams(cursor));
}

/** A list is well-formed when every item inserts a string at the cursor. */
function expectWellFormed(list: InlineCompletionList, cursor: Cursor): void {
  expect(Array.isArray(list.items)).toBe(true);
  for (const item of list.items) {
    expect(typeof item.insertText).toBe('string');
    expect(item.range?.start).toEqual({ line: cursor.line, character: cursor.character });
  }
}

describe.skipIf(!existsSync(ENGINE_SOURCE))('reposhapley serve --stdio (real engine)', () => {
  test('a session: index, complete, storm, edit, trace, shutdown, exit 0', async () => {
    const client = await startIndexed();
    const { connection } = client;

    const first = await inline(client, END_CURSOR);
    expectWellFormed(first, END_CURSOR);
    if (!HAS_MODEL) {
      expect(first.items).toEqual([]);
      await inline(client, END_CURSOR);
      await client.waitFor('no-model status', () => statusStates(client).includes('no-model'));
      const shown = (client.received('window/showMessage') as { message: string }[]).filter((m) => /model/i.test(m.message));
      expect(shown).toHaveLength(1);
      expect(shown[0].message).toMatch(/REPOSHAPLEY_MODEL|modelPath|--model/);
    }

    const storm = await completionStorm(client, END_CURSOR, 50);
    expect(storm.answers).toHaveLength(50);
    // Cancelled and superseded requests answer empty; with a model, the first answer is cached,
    // so a request may also be answered at once from the cache with that same completion.
    for (const answer of storm.answers) expect([{ items: [] }, ...(HAS_MODEL ? [first] : [])]).toContainEqual(answer);
    expectWellFormed(await inline(client, END_CURSOR), END_CURSOR);

    await connection.sendNotification('textDocument/didChange', {
      textDocument: { uri: MAIN_URI, version: 2 },
      contentChanges: [{ range: { start: END_CURSOR, end: END_CURSOR }, text: 'perimeter())\n    total = ' }],
    });
    const afterEdit: Cursor = { uri: MAIN_URI, line: 11, character: 12 };
    expectWellFormed(await inline(client, afterEdit), afterEdit);

    const trace = await connection.sendRequest<{ traceId: string } | null>('reposhapley/completionTrace', {});
    if (HAS_MODEL) expect(trace?.traceId).toEqual(expect.any(String));
    else expect(trace).toBeNull();

    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    expect(await client.exitCode()).toBe(0);
  });

  test('bad frames, unknown methods, unopened documents and positions past the end leave it answering', async () => {
    const client = await startIndexed();
    const { connection } = client;
    client.writeRaw(frame('{"jsonrpc": "2.0", "id": 77, "method": ') + 'Content-Length: twelve\r\n\r\n' + frame('"just a string"'));
    await expect(connection.sendRequest('reposhapley/noSuchMethod', {})).rejects.toMatchObject({ code: -32601 });
    expect(await inline(client, { uri: pathToFileURL(path.join(WORKSPACE, 'never_opened.py')).href, line: 0, character: 0 })).toEqual({ items: [] });
    expect(await inline(client, { uri: MAIN_URI, line: 500, character: 0 })).toEqual({ items: [] });
    expect(await inline(client, { uri: MAIN_URI, line: 0, character: 500 })).toEqual({ items: [] });
    expect(await connection.sendRequest('textDocument/inlineCompletion', { position: null })).toEqual({ items: [] });
    expectWellFormed(await inline(client, END_CURSOR), END_CURSOR);
    expect(client.child.exitCode).toBeNull();
  });

  test('stdin closing ends the server promptly with code 0', async () => {
    const client = await startIndexed();
    client.child.stdin!.end();
    expect(await client.exitCode()).toBe(0);
  });

  test('the default command is serve: `main.js --stdio` answers initialize', async () => {
    const client = startServer(MAIN_JS, ['--stdio'], { REPOSHAPLEY_MODEL: '' });
    clients.push(client);
    const result = await client.initialize(WORKSPACE);
    expect(result.capabilities.inlineCompletionProvider).toBe(true);
  });
});
