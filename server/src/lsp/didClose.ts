/** `textDocument/didClose`: forgets the document and answers its pending completion (now stale). */
import type { DidCloseTextDocumentParams } from 'vscode-languageserver/node';
import type { ServerState } from './state.js';

/** Handles `textDocument/didClose`; one without a string uri is logged and dropped. */
export function onDidClose(state: ServerState) {
  return (params: DidCloseTextDocumentParams): void => {
    // The type says a uri; a malformed message may still send anything.
    const uri: unknown = (params?.textDocument as { uri?: unknown } | null | undefined)?.uri;
    if (typeof uri !== 'string') {
      state.logger.warn('didClose without a string uri: ignored');
      return;
    }
    state.scheduler.supersede(uri);
    state.typedThrough.forget(uri);
    state.engine?.closeDocument(uri);
  };
}
