/**
 * Custom LSP messages of the RepoShapley server. Every custom method lives under
 * the `reposhapley/` prefix. Editors and the bench import these names and types.
 */
import type { PolicyName } from './settings.js';

/** Request: the trace of a completion ("why this completion?"). */
export const COMPLETION_TRACE_METHOD = 'reposhapley/completionTrace';

/** Why a generation ended: a stop token, the token limit, a stop rule, or an abort. */
export type StopReason = 'eos' | 'max-tokens' | 'newline' | 'stop-string' | 'repetition' | 'aborted';

/**
 * Params of {@link COMPLETION_TRACE_METHOD}. Without `requestId` the server answers
 * with the trace of the most recent completion it finished.
 */
export interface CompletionTraceParams {
  /** The `traceId` from a completion item's `command.arguments`, or omitted for the latest. */
  traceId?: string;
}

/** One retrieved candidate as the trace shows it. */
export interface TraceCandidate {
  /** Position in the packed candidate list (1-based, the i of <C_i>). */
  index: number;
  relPath: string;
  startLine: number;
  endLine: number;
  kind: string;
  /** Which sources proposed it (jaccard, bm25, definition, import, usage). */
  sources: string[];
  score: number;
  /** Whether the policy kept it for generation. */
  kept: boolean;
  /** P(<KEEP>) from the two-token softmax, when the reposhapley policy decided. */
  keepProbability?: number;
  /** An import outline's listed definitions (where each starts); its own lines are the document's imports. */
  lists?: { relPath: string; startLine: number }[];
}

/** Wall-clock milliseconds per pipeline stage. */
export interface StageTimings {
  retrievalMs: number;
  promptMs: number;
  decisionMs: number;
  selectionMs: number;
  generationMs: number;
  totalMs: number;
}

/** Result of {@link COMPLETION_TRACE_METHOD}. */
export interface CompletionTrace {
  traceId: string;
  uri: string;
  line: number;
  character: number;
  policy: PolicyName;
  /** Effective policy after `auto` was resolved. */
  effectivePolicy: Exclude<PolicyName, 'auto'>;
  /** `need`/`done` from the model (reposhapley), or what the policy imposes. */
  decision: 'need' | 'done';
  /** P(<NEED>) from the two-token softmax, when the model was asked. */
  needProbability?: number;
  /** t_c, the P(<NEED>) at or above which the model retrieves; set when the model was asked. */
  needThreshold?: number;
  /** Why generation ended (`repetition`: the completion started a loop and was cut). */
  stoppedBy?: StopReason;
  candidates: TraceCandidate[];
  completion: string;
  outcome: 'ok' | 'cancelled' | 'no-model' | 'error';
  /** Human-readable reason when outcome is not ok. */
  message?: string;
  tokens: {
    prompt: number;
    prefix: number;
    suffix: number;
    chunks: number;
    generated: number;
    /** Prompt tokens whose evaluation was reused from an earlier step or request. */
    reused: number;
  };
  timings: StageTimings;
  /** Index version the completion was computed against. */
  indexVersion: number;
  /** The rendered generation prompt, when the `tracePrompt` setting is on. */
  prompt?: string;
  /** Whether the answer came from the completion cache. */
  cached: boolean;
}

/** Notification (server -> client): server status for a status bar. */
export const STATUS_NOTIFICATION = 'reposhapley/status';

/** Params of {@link STATUS_NOTIFICATION}. */
export interface StatusParams {
  state: 'indexing' | 'ready' | 'no-model' | 'error';
  /** Short human text, e.g. "indexed 668 files" or the model error with its fix. */
  message: string;
  /** Files indexed so far, while indexing. */
  indexedFiles?: number;
  /** Latency of the last completion in ms, when one finished. */
  lastLatencyMs?: number;
}
