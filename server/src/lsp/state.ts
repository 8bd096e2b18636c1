/**
 * The state one LSP session shares between its handlers. Handlers receive it explicitly;
 * there are no module-level singletons, so tests can start several servers in one process.
 */
import type { ClientCapabilities, Connection } from 'vscode-languageserver/node';
import type { CompletionEngine } from '../completion/engine.js';
import type { SettingsPatch } from '../../../shared/settings.js';
import type { Logger } from '../util/logger.js';
import { CompletionCache } from './cache.js';
import type { Lifecycle } from './lifecycle.js';
import { TypedThrough } from './typedThrough.js';
import { CompletionScheduler } from './scheduler.js';
import { StatusReporter } from './status.js';

/** Options the engine factory receives; `createCompletionEngine` accepts these (and more). */
export interface EngineFactoryOptions {
  logger: Logger;
  settings?: SettingsPatch;
}

/** Creates the engine once `initialize` has delivered the client's settings. */
export type EngineFactory = (options: EngineFactoryOptions) => CompletionEngine | Promise<CompletionEngine>;

/** Everything the handlers of one connection share. */
export interface ServerState {
  readonly connection: Connection;
  readonly logger: Logger;
  readonly createEngine: EngineFactory;
  /** Set by `initialize`; requests before it get empty answers. */
  engine?: CompletionEngine;
  capabilities: ClientCapabilities;
  /** Workspace roots as filesystem paths. */
  roots: string[];
  /** Command attached to completion items with the trace id, when the client asked for one. */
  completionCommand?: string;
  readonly cache: CompletionCache;
  /** The last completion shown per document, answered on while the user types it (typedThrough.ts). */
  readonly typedThrough: TypedThrough;
  readonly scheduler: CompletionScheduler;
  readonly status: StatusReporter;
  /** Aborts the running indexing pass. */
  indexing?: AbortController;
  /** URIs already logged as unknown to the engine (logged once each). */
  readonly unknownDocuments: Set<string>;
  /** Where the session is in the LSP lifecycle (lifecycle.ts). */
  lifecycle: Lifecycle;
}

/** A fresh session state for a connection. */
export function createServerState(connection: Connection, createEngine: EngineFactory, logger: Logger): ServerState {
  const state: ServerState = {
    connection,
    logger,
    createEngine,
    capabilities: {},
    roots: [],
    cache: new CompletionCache(),
    typedThrough: new TypedThrough(),
    scheduler: new CompletionScheduler({
      debounceMs: () => state.engine?.settings.debounceMs ?? 0,
      logger,
    }),
    status: new StatusReporter(connection, logger),
    unknownDocuments: new Set(),
    lifecycle: 'uninitialized',
  };
  return state;
}
