/**
 * `initialize`: records the client's capabilities and roots, creates the engine with the
 * settings from `initializationOptions` and announces what the server offers.
 */
import {
  ResponseError, ErrorCodes, TextDocumentSyncKind,
  type InitializeParams, type InitializeResult, type ServerCapabilities, type WorkspaceFolder,
} from 'vscode-languageserver/node';
import { uriToPath } from './converters.js';
import { beginInitialize } from './lifecycle.js';
import { PACKAGE_NAME, serverVersion } from './serverInfo.js';
import { readSettingsPatch } from './settingsPatch.js';
import type { ServerState } from './state.js';

/** Characters after which editors without inline completion ask for a completion item. */
export const COMPLETION_TRIGGER_CHARACTERS = ['.', '(', ' '];

/** Handles `initialize`. Fatal start-up failures answer with an error instead of crashing. */
export function onInitialize(state: ServerState) {
  return async (params: InitializeParams): Promise<InitializeResult> => {
    beginInitialize(state);
    state.capabilities = params.capabilities ?? {};
    state.roots = workspaceRoots(params);
    state.completionCommand = readCompletionCommand(params.initializationOptions);
    state.status.clientOffersPull = readModelPullOffer(params.initializationOptions);
    try {
      const engine = await state.createEngine({ logger: state.logger, settings: readSettingsPatch(params.initializationOptions) });
      engine.onNotice((notice) => state.status.notice(notice));
      engine.onModelStatus((status) => {
        state.cache.clear(); // answers of a replaced model (a pull finished) must not be served for the new one
        state.typedThrough.clear();
        state.status.modelChanged(status);
      });
      state.engine = engine;
    } catch (error) {
      state.logger.error(`engine start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      state.lifecycle = 'uninitialized'; // the client may try again
      throw new ResponseError(ErrorCodes.InternalError, `RepoShapley could not start: ${String(error)}`, { retry: false });
    }
    state.lifecycle = 'running';
    state.logger.info(`initialized for ${state.roots.length} root(s): ${state.roots.join(', ') || '(none)'}`);
    return { capabilities: serverCapabilities(params), serverInfo: { name: PACKAGE_NAME, version: serverVersion() } };
  };
}

/**
 * Inline completion where the client has it; completion items otherwise, so editors
 * without ghost text still get the completion (and clients with it do not get it twice).
 */
function serverCapabilities(params: InitializeParams): ServerCapabilities {
  const hasInline = params.capabilities?.textDocument?.inlineCompletion !== undefined;
  return {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
    inlineCompletionProvider: true,
    ...(hasInline ? {} : { completionProvider: { triggerCharacters: COMPLETION_TRIGGER_CHARACTERS, resolveProvider: false } }),
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
}

/** Workspace folders, else rootUri, else rootPath, as filesystem paths. */
export function workspaceRoots(params: Pick<InitializeParams, 'workspaceFolders' | 'rootUri' | 'rootPath'>): string[] {
  const folders: WorkspaceFolder[] = Array.isArray(params.workspaceFolders) ? params.workspaceFolders : [];
  const fromFolders = folders.map((folder) => uriToPath(folder?.uri ?? '')).filter((path): path is string => !!path);
  if (fromFolders.length > 0) return [...new Set(fromFolders)];
  const fromRootUri = typeof params.rootUri === 'string' ? uriToPath(params.rootUri) : undefined;
  if (fromRootUri) return [fromRootUri];
  return typeof params.rootPath === 'string' && params.rootPath ? [params.rootPath] : [];
}

/**
 * `initializationOptions.modelPullOffer: true`: the client offers to download a pullable model
 * (`reposhapley/status` `pullable`, `reposhapley/pullModel`), so the server does not also show
 * the "not downloaded yet" warning.
 */
function readModelPullOffer(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as { modelPullOffer?: unknown }).modelPullOffer === true;
}

/** `initializationOptions.completionCommand`: a client command to attach to items, opt-in. */
function readCompletionCommand(options: unknown): string | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const command = (options as { completionCommand?: unknown }).completionCommand;
  return typeof command === 'string' && command ? command : undefined;
}
