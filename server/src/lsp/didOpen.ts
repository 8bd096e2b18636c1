/** `textDocument/didOpen`: the document enters the mirror and the engine's document store. */
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
    const { uri, languageId, version, text } = document;
    state.documents.open(uri, languageId, version, text);
    state.unknownDocuments.delete(uri);
    state.engine?.openDocument(uri, text, version);
  };
}
