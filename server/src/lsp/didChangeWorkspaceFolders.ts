/** `workspace/didChangeWorkspaceFolders`: roots added or removed; the workspace is indexed again. */
import type { WorkspaceFoldersChangeEvent } from 'vscode-languageserver/node';
import { uriToPath } from './converters.js';
import { runIndexing } from './indexing.js';
import type { ServerState } from './state.js';

/** Handles a workspace folder change event (delivered through the library's workspace feature). */
export function onDidChangeWorkspaceFolders(state: ServerState) {
  return (event: WorkspaceFoldersChangeEvent): void => {
    const removed = new Set(event.removed.map((folder) => uriToPath(folder.uri)));
    const added = event.added.map((folder) => uriToPath(folder.uri)).filter((path): path is string => !!path);
    state.roots = [...new Set([...state.roots.filter((root) => !removed.has(root)), ...added])];
    state.logger.info(`workspace folders changed: ${state.roots.join(', ') || '(none)'}`);
    void runIndexing(state);
  };
}
