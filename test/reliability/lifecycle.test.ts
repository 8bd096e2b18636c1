/**
 * The LSP lifecycle over stdio, as a hostile or careless client drives it (issue 22): requests
 * before `initialize`, a repeated `initialize`, requests after `shutdown`, batches and requests
 * whose id no answer can carry. Each gets the error reply the specification names, and the server
 * goes on answering.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { RawLspClient } from './rawLspClient.js';

const SERVER_NOT_INITIALIZED = -32002;
const INVALID_REQUEST = -32600;
// No model file: the lifecycle is what is under test, and a model load would only slow it.
const ENV = { REPOSHAPLEY_MODEL: '/nonexistent/lifecycle-test.gguf', REPOSHAPLEY_LOG: 'info' };
const INLINE = { textDocument: { uri: 'file:///tmp/x.py' }, position: { line: 0, character: 0 }, context: { triggerKind: 1 } };

let client: RawLspClient | undefined;
afterEach(async () => {
  await client?.dispose();
  client = undefined;
});

async function errorOf(c: RawLspClient, method: string, params?: unknown): Promise<number | undefined> {
  return (await c.within(method, c.request(method, params).answer)).error?.code;
}

describe('LSP lifecycle', () => {
  test('before initialize: requests get −32002, notifications are dropped; initialize then works', async () => {
    client = RawLspClient.server({ env: ENV });
    expect(await errorOf(client, 'textDocument/inlineCompletion', INLINE)).toBe(SERVER_NOT_INITIALIZED);
    expect(await errorOf(client, 'reposhapley/completionTrace', {})).toBe(SERVER_NOT_INITIALIZED);
    expect(await errorOf(client, 'shutdown')).toBe(SERVER_NOT_INITIALIZED);
    client.notify('textDocument/didOpen', { textDocument: { uri: 'file:///tmp/x.py', languageId: 'python', version: 1, text: 'x = 1\n' } });
    const initialized = await client.initialize(undefined);
    expect(initialized.error).toBeUndefined();
    expect(await errorOf(client, 'reposhapley/completionTrace', {})).toBeUndefined();
  });

  test('initialize is taken once: a repeat is refused and no second engine starts', async () => {
    client = RawLspClient.server({ env: ENV });
    await client.initialize(undefined);
    for (let i = 0; i < 5; i++) expect(await errorOf(client, 'initialize', { processId: null, rootUri: null, capabilities: {} })).toBe(INVALID_REQUEST);
    expect(client.stderr.match(/initialized for/g)).toHaveLength(1);
    expect(await errorOf(client, 'textDocument/inlineCompletion', INLINE)).toBeUndefined();
  });

  test('after shutdown only exit: requests and initialize are refused, a repeated shutdown is answered, exit gives 0', async () => {
    client = RawLspClient.server({ env: ENV });
    await client.initialize(undefined);
    expect(await errorOf(client, 'shutdown')).toBeUndefined();
    expect(await errorOf(client, 'textDocument/inlineCompletion', INLINE)).toBe(INVALID_REQUEST);
    expect(await errorOf(client, 'initialize', { processId: null, rootUri: null, capabilities: {} })).toBe(INVALID_REQUEST);
    expect(await errorOf(client, 'shutdown')).toBeUndefined();
    client.notify('exit');
    expect(await client.within('exit', client.exited)).toEqual({ code: 0, signal: null });
  });

  test('a batch, and requests whose id is an object, an array, null or a boolean, are answered with errors', async () => {
    client = RawLspClient.server({ env: ENV });
    await client.initialize(undefined);
    const frame = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    await client.write(frame(JSON.stringify([{ jsonrpc: '2.0', id: 900, method: 'reposhapley/completionTrace', params: {} }])));
    for (const id of [{ a: 1 }, [1], null, true]) {
      await client.write(frame(JSON.stringify({ jsonrpc: '2.0', id, method: 'reposhapley/completionTrace', params: {} })));
    }
    await client.waitFor('five error replies', () => client!.nullIdErrors.length === 5, 10_000);
    expect(client.nullIdErrors.map((e) => e.code)).toEqual(Array(5).fill(INVALID_REQUEST));
    expect(client.nullIdErrors[0]!.message).toMatch(/batch/);
    expect(await errorOf(client, 'reposhapley/completionTrace', {})).toBeUndefined();
  });
});
