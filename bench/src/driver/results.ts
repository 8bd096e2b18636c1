/** What the driver records per task and policy. */
import type { CompletionTrace } from '../../../shared/messages.js';
import type { LayoutPreference, PolicyName, PromptBudgets } from '../../../shared/settings.js';
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
  /** Reused prompt tokens over prompt tokens, over the traces of requests answered after keystrokes. */
  reusedTokens: number;
  promptTokens: number;
  /** Client latency of the request after the last keystroke (the user has stopped typing). */
  settledLatencyMs: number;
  /** Client latencies of every answered request. */
  latenciesMs: number[];
  /**
   * Keystroke to answer of every answered request, the server's debounce taken out (answers from
   * the completion cache or typed-through ghost text never wait for it).
   */
  keystrokeMs: number[];
  /**
   * The part of `keystrokeMs` the model answered (a new trace, neither cache nor typed-through
   * ghost text): what a prompt order costs while typing. Absent in results from before it was kept.
   */
  modelKeystrokeMs?: number[];
  /**
   * The arrival: latency of the request at the cursor before any key, or with `--pause-ms` of the
   * first key's request (NaN when it was cancelled).
   */
  firstMs: number;
  /** The arrival's prompt tokens and those served from the KV cache (absent in older results). */
  arrivalTokens?: { prompt: number; reused: number };
  /** With `--jump`: the line the user jumped from (0-based); absent when the file had no other function. */
  jumpFromLine?: number;
}

/**
 * What one set of results ran under: a policy, a prompt layout when the run compares layouts
 * (`--layouts`), and prompt budgets when it compares several (`--budgets a b`). Reports name it
 * `policy`, `policy@layout`, `policy@384-64-384` or `policy@layout@384-64-384`.
 */
export interface Arm {
  policy: PolicyName;
  layout?: LayoutPreference;
  budgets?: PromptBudgets;
}

/** The name a report gives an arm. */
export type ArmName = string;

export function armName(arm: Arm): ArmName {
  const budgets = arm.budgets ? `${arm.budgets.prefixTokens}-${arm.budgets.suffixTokens}-${arm.budgets.chunkTokens}` : undefined;
  return [arm.policy, arm.layout, budgets].filter((part) => part !== undefined).join('@');
}

/** One task under one arm. */
export interface TaskResult {
  taskId: string;
  type: TaskType;
  repository: string;
  /** The arm (armName): the policy, with `@layout` when the run compares layouts. */
  policy: ArmName;
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
  /** The report folder of the run that measured it, when `--reuse` copied it from there. */
  reusedFrom?: string;
}
