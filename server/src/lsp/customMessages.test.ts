/**
 * The typed custom messages (shared/messages.ts) over a real pair of connections: the server's
 * (vscode-languageserver) and an editor's (vscode-languageserver-protocol, as the bench and the
 * tests use). vscode-jsonrpc tells parameter structures apart by object identity, so message
 * objects built by another copy of it than the connection's make sending throw; this fails then.
 */
import { PassThrough } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { createProtocolConnection, type ProtocolConnection } from 'vscode-languageserver-protocol/node';
import { createConnection, StreamMessageReader, StreamMessageWriter, type Connection } from 'vscode-languageserver/node';
import {
  CompletionTraceRequest, PullModelRequest, StatusNotification, type CompletionTrace, type StatusParams,
} from '../../../shared/messages.js';

let server: Connection | undefined;
let editor: ProtocolConnection | undefined;

afterEach(() => {
  editor?.dispose();
  server?.dispose();
});

function connect(): { server: Connection; editor: ProtocolConnection } {
  const toServer = new PassThrough();
  const toEditor = new PassThrough();
  server = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toEditor));
  editor = createProtocolConnection(new StreamMessageReader(toEditor), new StreamMessageWriter(toServer));
  return { server, editor };
}

test('the method names sit under the reposhapley/ prefix', () => {
  expect(CompletionTraceRequest.method).toBe('reposhapley/completionTrace');
  expect(StatusNotification.method).toBe('reposhapley/status');
  expect(PullModelRequest.method).toBe('reposhapley/pullModel');
});

test('an editor requests a completion trace and receives status with the shared objects', async () => {
  const { server, editor } = connect();
  const asked: unknown[] = [];
  server.onRequest(CompletionTraceRequest, (params) => {
    asked.push(params);
    return params.traceId === 'known' ? ({ traceId: 'known' } as CompletionTrace) : null;
  });
  const statuses = new Promise<StatusParams>((resolve) => editor.onNotification(StatusNotification, resolve));
  server.listen();
  editor.listen();

  expect(await editor.sendRequest(CompletionTraceRequest, { traceId: 'known' })).toEqual({ traceId: 'known' });
  expect(await editor.sendRequest(CompletionTraceRequest, {})).toBeNull();
  expect(asked).toEqual([{ traceId: 'known' }, {}]);

  await server.sendNotification(StatusNotification, { state: 'ready', message: 'indexed 3 files' });
  expect(await statuses).toEqual({ state: 'ready', message: 'indexed 3 files' });
});
