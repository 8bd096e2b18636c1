/** What the driver records per task and policy. */
import type { CompletionTrace } from '../../../shared/messages.js';
import type { PolicyName } from '../../../shared/settings.js';
import type { CalleeEvidence } from '../metrics/evidence.js';
import type { QualityScores } from '../metrics/textMetrics.js';
import type { TaskType } from '../tasks/types.js';

/** How a request ended for the client: `ok` = a non-empty completion arrived. */
export type RunOutcome = 'ok' | 'empty' | 'timeout' | 'error';

/** What a user felt while typing the target (the --typing mode), for one task. */
export interface TypingStats {
  /** Characters typed (code points), one request each, plus the request at the start. */
  keystrokes: number;
  requests: number;
  /** Requests the client cancelled because the next keystroke came first (what an editor does). */
  cancelled: number;
  /** Requests answered with a non-empty completion before the next keystroke. */
  shown: number;
  /** Requests answered empty before the next keystroke (superseded, debounced away, nothing to say). */
  empty: number;
  /** Answers whose trace id had already been answered in this task: served from the LSP cache. */
  cacheHits: number;
  /** Reused prompt tokens over prompt tokens, over the answered requests' traces. */
  reusedTokens: number;
  promptTokens: number;
  /** Client latency of the request after the last keystroke (the user has stopped typing). */
  settledLatencyMs: number;
  /** Client latencies of every answered request. */
  latenciesMs: number[];
}

/** One task under one policy. */
export interface TaskResult {
  taskId: string;
  type: TaskType;
  repository: string;
  policy: PolicyName;
  completion: string;
  /** The ground truth compared against (in --typing mode, the part of the target not yet typed). */
  target: string;
  outcome: RunOutcome;
  error?: string;
  /** Client-side latency of the (final) inline completion request. */
  latencyMs: number;
  /** Harness wall time for the task: open, request(s), trace, close. */
  cycleMs: number;
  scores: QualityScores;
  /** The server's trace of the (final) completion; undefined when it produced none. */
  trace?: CompletionTrace;
  /** API tasks with a trace: whether the callee's definition was retrieved and sent. */
  evidence?: CalleeEvidence;
  typing?: TypingStats;
}
