/** `textDocument/didClose`: forgets the document and answers its pending completion (now stale). */
import type { DidCloseTextDocumentParams } from 'vscode-languageserver/node';
import type { ServerState } from './state.js';

/** Handles `textDocument/didClose`. */
export function onDidClose(state: ServerState) {
  return (params: DidCloseTextDocumentParams): void => {
    const { uri } = params.textDocument;
    state.scheduler.supersede(uri);
    state.typedThrough.forget(uri);
    state.engine?.closeDocument(uri);
  };
}
