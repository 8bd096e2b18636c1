/** `workspace/didChangeWorkspaceFolders`: roots added or removed; the workspace is indexed again. */
import type { WorkspaceFoldersChangeEvent } from 'vscode-languageserver/node';
import { uriToPath } from './converters.js';
import { runIndexing } from './indexing.js';
import type { ServerState } from './state.js';

/**
 * Handles a workspace folder change event (delivered through the library's workspace feature).
 * A malformed event (lists missing, folders without a string uri) changes only what it names well.
 */
export function onDidChangeWorkspaceFolders(state: ServerState) {
  return (event: WorkspaceFoldersChangeEvent): void => {
    if (!Array.isArray(event?.removed) && !Array.isArray(event?.added)) {
      state.logger.warn('didChangeWorkspaceFolders without added or removed folders: ignored');
      return;
    }
    const removed = new Set(folderPaths(event.removed));
    const added = folderPaths(event.added);
    state.roots = [...new Set([...state.roots.filter((root) => !removed.has(root)), ...added])];
    state.logger.info(`workspace folders changed: ${state.roots.join(', ') || '(none)'}`);
    void runIndexing(state);
  };
}

/** The paths of the folders in `folders`, when it is a list; entries without a string file uri are left out. */
function folderPaths(folders: unknown): string[] {
  if (!Array.isArray(folders)) return [];
  return folders
    .map((folder: unknown) => (folder as { uri?: unknown } | null)?.uri)
    .map((uri) => (typeof uri === 'string' ? uriToPath(uri) : undefined))
    .filter((path): path is string => !!path);
}
