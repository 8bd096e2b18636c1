/** `textDocument/didChange`: incremental edits go, as DocumentEdit[], to the engine's document store. */
import type { DidChangeTextDocumentParams } from 'vscode-languageserver/node';
import { fromLspEdits, isContentChange } from './converters.js';
import type { ServerState } from './state.js';

/**
 * Handles `textDocument/didChange`; changes to documents never opened are logged and dropped, and
 * so is a change list holding a malformed change (none of it is applied).
 */
export function onDidChange(state: ServerState) {
  return (params: DidChangeTextDocumentParams): void => {
    const { uri, version } = params.textDocument;
    const changes: unknown = params.contentChanges;
    if (!Array.isArray(changes) || !changes.every(isContentChange)) {
      state.logger.warn(`didChange with malformed content changes for ${String(uri)}: ignored`);
      return;
    }
    if (!state.engine?.changeDocument(uri, fromLspEdits(changes), version)) {
      state.logger.debug(`didChange for a document that is not open: ${uri}`);
    }
  };
}
