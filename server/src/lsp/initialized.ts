/**
 * `initialized`: registers for file-watcher and configuration events where the client allows
 * dynamic registration, and starts indexing in the background. Settings come from
 * `initializationOptions`; later changes from workspace/didChangeConfiguration.
 */
import {
  DidChangeConfigurationNotification, DidChangeWatchedFilesNotification,
  type InitializedParams,
} from 'vscode-languageserver/node';
import { LANGUAGES, PROJECT_FILE_NAMES } from '../languages/registry.js';
import { onDidChangeWorkspaceFolders } from './didChangeWorkspaceFolders.js';
import { guardNotification } from './guard.js';
import { runIndexing } from './indexing.js';
import { SETTINGS_SECTION } from './settingsPatch.js';
import type { ServerState } from './state.js';

/** Files whose changes the index follows: every registered language's sources and project files. */
export const WATCHED_GLOBS = [
  ...LANGUAGES.flatMap((language) => language.extensions.map((ext) => `**/*${ext}`)),
  ...[...PROJECT_FILE_NAMES].map((name) => `**/${name}`),
  '**/.gitignore',
];

/** Handles `initialized`. */
export function onInitialized(state: ServerState) {
  return async (_params: InitializedParams): Promise<void> => {
    await registerDynamicFeatures(state);
    followWorkspaceFolders(state);
    void runIndexing(state);
  };
}

async function registerDynamicFeatures(state: ServerState): Promise<void> {
  const { connection, capabilities, logger } = state;
  const registrations: Promise<unknown>[] = [];
  if (capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration) {
    registrations.push(connection.client.register(DidChangeWatchedFilesNotification.type, {
      watchers: WATCHED_GLOBS.map((globPattern) => ({ globPattern })),
    }));
  }
  if (capabilities.workspace?.didChangeConfiguration?.dynamicRegistration) {
    registrations.push(connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION }));
  }
  const results = await Promise.allSettled(registrations);
  for (const result of results) {
    if (result.status === 'rejected') logger.warn(`client refused a registration: ${String(result.reason)}`);
  }
}

/** Workspace folder changes arrive through the library's feature, which exists only if the client has them. */
function followWorkspaceFolders(state: ServerState): void {
  if (!state.capabilities.workspace?.workspaceFolders) return;
  state.connection.workspace.onDidChangeWorkspaceFolders(
    guardNotification(state.logger, 'workspace/didChangeWorkspaceFolders', onDidChangeWorkspaceFolders(state)),
  );
}
