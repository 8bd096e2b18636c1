/**
 * The LSP routing table: one line per method, each handler in its own file, each wrapped so
 * an exception becomes a logged error and an empty answer. Unknown methods are answered with
 * MethodNotFound by vscode-jsonrpc itself.
 */
import type { Connection } from 'vscode-languageserver/node';
import { CompletionTraceRequest, PullModelRequest } from '../../../shared/messages.js';
import type { Logger } from '../util/logger.js';
import { onCompletion, emptyCompletionList } from './completion.js';
import { onCompletionTrace } from './completionTrace.js';
import { onDidChange } from './didChange.js';
import { onDidChangeConfiguration } from './didChangeConfiguration.js';
import { onDidChangeWatchedFiles } from './didChangeWatchedFiles.js';
import { onDidClose } from './didClose.js';
import { onDidOpen } from './didOpen.js';
import { guardNotification as notification, guardRequest as request } from './guard.js';
import { onInitialize } from './initialize.js';
import { onInitialized } from './initialized.js';
import { emptyInlineList, onInlineCompletion } from './inlineCompletion.js';
import { onPullModel, pullModelFailed } from './pullModel.js';
import { onExit, onShutdown } from './shutdown.js';
import { createServerState, type EngineFactory, type ServerState } from './state.js';

export type { EngineFactory, EngineFactoryOptions } from './state.js';

/** Registers every handler on `connection`, starts listening and returns the session state. */
export function startLspServer(connection: Connection, createEngine: EngineFactory, logger: Logger): ServerState {
  const state = createServerState(connection, createEngine, logger);
  const log = state.logger;
  connection.onInitialize(onInitialize(state));
  connection.onInitialized(notification(log, 'initialized', onInitialized(state)));
  connection.onDidOpenTextDocument(notification(log, 'textDocument/didOpen', onDidOpen(state)));
  connection.onDidChangeTextDocument(notification(log, 'textDocument/didChange', onDidChange(state)));
  connection.onDidCloseTextDocument(notification(log, 'textDocument/didClose', onDidClose(state)));
  connection.onDidChangeWatchedFiles(notification(log, 'workspace/didChangeWatchedFiles', onDidChangeWatchedFiles(state)));
  connection.onDidChangeConfiguration(notification(log, 'workspace/didChangeConfiguration', onDidChangeConfiguration(state)));
  connection.languages.inlineCompletion.on(request(log, 'textDocument/inlineCompletion', emptyInlineList, onInlineCompletion(state)));
  connection.onCompletion(request(log, 'textDocument/completion', emptyCompletionList, onCompletion(state)));
  connection.onRequest(CompletionTraceRequest, request(log, CompletionTraceRequest.method, () => null, onCompletionTrace(state)));
  connection.onRequest(PullModelRequest, request(log, PullModelRequest.method, pullModelFailed, onPullModel(state)));
  connection.onShutdown(request(log, 'shutdown', () => undefined, onShutdown(state)));
  connection.onExit(onExit(state));
  connection.listen();
  return state;
}
