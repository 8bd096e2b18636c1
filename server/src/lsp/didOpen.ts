/** `textDocument/didOpen`: the document enters the mirror and the engine's document store. */
import type { DidOpenTextDocumentParams } from 'vscode-languageserver/node';
import type { ServerState } from './state.js';

/** Handles `textDocument/didOpen`. */
export function onDidOpen(state: ServerState) {
  return (params: DidOpenTextDocumentParams): void => {
    const { uri, languageId, version, text } = params.textDocument;
    state.documents.open(uri, languageId, version, text);
    state.unknownDocuments.delete(uri);
    state.engine?.openDocument(uri, text, version);
  };
}
