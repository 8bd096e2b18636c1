/** `workspace/didChangeWatchedFiles`: files changed on disk (git checkout, another editor). */
import type { DidChangeWatchedFilesParams } from 'vscode-languageserver/node';
import { fromLspFileEvents } from './converters.js';
import type { ServerState } from './state.js';

/** Handles `workspace/didChangeWatchedFiles`. */
export function onDidChangeWatchedFiles(state: ServerState) {
  return async (params: DidChangeWatchedFilesParams): Promise<void> => {
    const events = fromLspFileEvents(Array.isArray(params?.changes) ? params.changes : []);
    if (events.length === 0 || !state.engine) return;
    state.logger.debug(`${events.length} watched file change(s)`);
    await state.engine.filesChanged(events);
  };
}
