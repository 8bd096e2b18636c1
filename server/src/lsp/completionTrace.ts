/** `reposhapley/completionTrace`: why a completion came out as it did (null when unknown). */
import type { CompletionTrace, CompletionTraceParams } from '../../../shared/messages.js';
import type { ServerState } from './state.js';

/** Handles `reposhapley/completionTrace`; without a trace id, the latest completion's trace. */
export function onCompletionTrace(state: ServerState) {
  return (params: CompletionTraceParams | undefined | null): CompletionTrace | null => {
    const traceId = typeof params?.traceId === 'string' ? params.traceId : undefined;
    return state.engine?.trace(traceId) ?? null;
  };
}
