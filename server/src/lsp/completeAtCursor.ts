/**
 * The completion flow both completion handlers share: validate the cursor, answer from the
 * cache or from the ghost text the user is typing through, else schedule `engine.complete` and
 * turn its outcome into text or nothing.
 * Every non-ok outcome is "nothing" for the client; what the user must know arrives as a notice.
 */
import type { Command } from 'vscode-languageserver/node';
import type { CompletionOutcome } from '../completion/engine.js';
import { CACHE_PREFIX_CHARS, CACHE_SUFFIX_CHARS, completionCacheKey, type CachedCompletion } from './cache.js';
import type { CancellationLike, DomainPosition } from './converters.js';
import type { ServerState } from './state.js';

/** A completion request as the handlers hand it over. */
export interface CursorRequest {
  uri: string;
  position: DomainPosition;
  trigger: 'automatic' | 'invoked';
  /** Line or block completion, when the client says (see {@link completionModeOf}). */
  mode?: 'line' | 'block';
}

/**
 * The optional `reposhapley.mode` extension of completion params ('line' | 'block'): clients that
 * know what they want (the bench's line and block tasks) skip the cursor heuristic.
 */
export function completionModeOf(params: unknown): 'line' | 'block' | undefined {
  const mode = (params as { reposhapley?: { mode?: unknown } } | undefined)?.reposhapley?.mode;
  return mode === 'line' || mode === 'block' ? mode : undefined;
}

/** Completes at the cursor; undefined means "answer with an empty result". */
export async function completeAtCursor(
  state: ServerState, request: CursorRequest, token: CancellationLike,
): Promise<CachedCompletion | undefined> {
  const engine = state.engine;
  if (!engine || state.lifecycle === 'shut-down' || !engine.settings.enabled) return undefined;
  const context = engine.documents.textAround(request.uri, request.position, CACHE_PREFIX_CHARS, CACHE_SUFFIX_CHARS);
  if (!context) {
    logUnknownOnce(state, request.uri, engine.documents.has(request.uri) ? 'position outside the document' : 'document not open');
    return undefined;
  }
  const key = completionCacheKey({
    uri: request.uri, prefix: context.prefix, suffix: context.suffix,
    indexVersion: engine.indexVersion, settings: engine.settings, mode: request.mode,
  });
  // Settings and mode without the text or index version: what a typed-through answer must share.
  const requestKey = completionCacheKey({ uri: request.uri, prefix: '', suffix: '', indexVersion: 0, settings: engine.settings, mode: request.mode });
  const reused = state.cache.get(key) ?? state.typedThrough.match(request.uri, context, requestKey);
  if (reused) {
    state.scheduler.supersede(request.uri);
    return reused;
  }
  const result = await state.scheduler.schedule(request.uri, request.trigger, token, (signal) =>
    engine.complete({ uri: request.uri, ...request.position, trigger: request.trigger, mode: request.mode }, signal));
  if (result.kind === 'cancelled') return undefined;
  const completion = fromOutcome(state, request.uri, result.value);
  if (completion && engine.documents.version(request.uri) === context.version) {
    state.cache.set(key, completion);
    state.typedThrough.remember(request.uri, context, requestKey, completion);
  }
  return completion;
}

/** Outcome -> text, reporting what the client or the log should know (the latency comes with the outcome). */
function fromOutcome(state: ServerState, uri: string, outcome: CompletionOutcome): CachedCompletion | undefined {
  switch (outcome.kind) {
    case 'ok':
      state.status.completed(outcome.latencyMs, outcome.sharedWaitMs);
      return { text: outcome.text, traceId: outcome.traceId };
    case 'no-model':
      state.status.modelMissing(outcome.message);
      return undefined;
    case 'unknown-document':
      logUnknownOnce(state, uri, outcome.message);
      return undefined;
    case 'error':
      state.logger.warn(`completion failed for ${uri}: ${outcome.message}`);
      return undefined;
    case 'cancelled':
    case 'disabled':
      return undefined;
  }
}

function logUnknownOnce(state: ServerState, uri: string, reason: string): void {
  if (state.unknownDocuments.has(uri)) return;
  state.unknownDocuments.add(uri);
  state.logger.debug(`no completion for ${uri}: ${reason}`);
}

/** The opt-in command (initializationOptions.completionCommand) that carries the trace id. */
export function traceCommand(state: ServerState, traceId: string): Command | undefined {
  if (!state.completionCommand) return undefined;
  return { title: 'RepoShapley: why this completion?', command: state.completionCommand, arguments: [traceId] };
}
