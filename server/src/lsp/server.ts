/**
 * The LSP routing table: one line per method, each handler in its own file, each wrapped so
 * an exception becomes a logged error and an empty answer. Unknown methods are answered with
 * MethodNotFound by vscode-jsonrpc itself.
 */
import type { Connection } from 'vscode-languageserver/node';
import { CompletionTraceRequest, CursorNotification, PullModelRequest } from '../../../shared/messages.js';
import type { Logger } from '../util/logger.js';
import { onCompletion, emptyCompletionList } from './completion.js';
import { onCompletionTrace } from './completionTrace.js';
import { onCursor } from './cursor.js';
import { onDidChange } from './didChange.js';
import { onDidChangeConfiguration } from './didChangeConfiguration.js';
import { onDidChangeWatchedFiles } from './didChangeWatchedFiles.js';
import { onDidClose } from './didClose.js';
import { onDidOpen } from './didOpen.js';
import { guardNotification, guardRequest } from './guard.js';
import { gateNotification, gateRequest, checkRequestAllowed } from './lifecycle.js';
import { onInitialize } from './initialize.js';
import { onInitialized } from './initialized.js';
import { emptyInlineList, onInlineCompletion } from './inlineCompletion.js';
import { onPullModel, pullModelFailed } from './pullModel.js';
import { onExit, onShutdown } from './shutdown.js';
import { createServerState, type EngineFactory, type ServerState } from './state.js';

export type { EngineFactory, EngineFactoryOptions } from './state.js';

/** `shutdown` is refused before initialize like any request; repeated after shutdown it is answered again. */
function gateShutdown<A extends unknown[]>(state: ServerState, handler: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    if (state.lifecycle !== 'shut-down') checkRequestAllowed(state, 'shutdown');
    return handler(...args);
  };
}

/** Registers every handler on `connection`, starts listening and returns the session state. */
export function startLspServer(connection: Connection, createEngine: EngineFactory, logger: Logger): ServerState {
  const state = createServerState(connection, createEngine, logger);
  const log = state.logger;
  connection.onInitialize(onInitialize(state));
  const notification = <P>(method: string, handler: (params: P) => void | Promise<void>) =>
    gateNotification(state, method, guardNotification(log, method, handler));
  const request = <P, R, A extends unknown[]>(method: string, fallback: () => R, handler: (params: P, ...rest: A) => R | Promise<R>) =>
    gateRequest(state, method, guardRequest(log, method, fallback, handler));
  connection.onInitialized(notification('initialized', onInitialized(state)));
  connection.onDidOpenTextDocument(notification('textDocument/didOpen', onDidOpen(state)));
  connection.onDidChangeTextDocument(notification('textDocument/didChange', onDidChange(state)));
  connection.onDidCloseTextDocument(notification('textDocument/didClose', onDidClose(state)));
  connection.onDidChangeWatchedFiles(notification('workspace/didChangeWatchedFiles', onDidChangeWatchedFiles(state)));
  connection.onDidChangeConfiguration(notification('workspace/didChangeConfiguration', onDidChangeConfiguration(state)));
  connection.languages.inlineCompletion.on(request('textDocument/inlineCompletion', emptyInlineList, onInlineCompletion(state)));
  connection.onCompletion(request('textDocument/completion', emptyCompletionList, onCompletion(state)));
  connection.onRequest(CompletionTraceRequest, request(CompletionTraceRequest.method, () => null, onCompletionTrace(state)));
  connection.onRequest(PullModelRequest, request(PullModelRequest.method, pullModelFailed, onPullModel(state)));
  connection.onNotification(CursorNotification, notification(CursorNotification.method, onCursor(state)));
  // shutdown before initialize is refused (−32002); a second shutdown after the first is harmless.
  connection.onShutdown(gateShutdown(state, guardRequest(log, 'shutdown', () => undefined, onShutdown(state))));
  connection.onExit(onExit(state));
  connection.listen();
  return state;
}
