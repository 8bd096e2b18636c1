/** `textDocument/didOpen`: the document enters the engine's document store (the server's only one). */
import type { DidOpenTextDocumentParams } from 'vscode-languageserver/node';
import { isOpenableDocument } from './converters.js';
import type { ServerState } from './state.js';

/** Handles `textDocument/didOpen`; a document without a string uri and text is logged and dropped. */
export function onDidOpen(state: ServerState) {
  return (params: DidOpenTextDocumentParams): void => {
    const document: unknown = params?.textDocument;
    if (!isOpenableDocument(document)) {
      state.logger.warn('didOpen without a string uri and text: ignored');
      return;
    }
    const { uri, version, text, languageId } = document;
    state.unknownDocuments.delete(uri);
    // The type says string; a malformed message may still send anything.
    state.engine?.openDocument(uri, text, version, typeof languageId === 'string' ? languageId : undefined);
  };
}
