/**
 * `shutdown` and `exit`. Shutdown answers every pending completion, stops indexing and disposes
 * the engine; the library then ends the process on `exit` with 0 after shutdown, 1 otherwise.
 */
import type { ServerState } from './state.js';

/** Handles `shutdown`. Idempotent. */
export function onShutdown(state: ServerState) {
  return async (): Promise<void> => {
    if (state.lifecycle === 'shut-down') return;
    state.lifecycle = 'shut-down';
    await disposeSession(state);
  };
}

/** Handles `exit` (the library calls process.exit after this returns). */
export function onExit(state: ServerState) {
  return (): void => {
    state.logger.info(state.lifecycle === 'shut-down' ? 'exit after shutdown' : 'exit without shutdown');
  };
}

/** Cancels pending work and releases the engine (model memory, file handles). Safe to call twice. */
export async function disposeSession(state: ServerState): Promise<void> {
  state.scheduler.dispose();
  state.indexing?.abort();
  const engine = state.engine;
  state.engine = undefined;
  if (!engine) return;
  try {
    await engine.dispose();
  } catch (error) {
    state.logger.warn(`engine dispose failed: ${String(error)}`);
  }
}
