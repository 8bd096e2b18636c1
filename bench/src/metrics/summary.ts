/**
 * Aggregates task results into the report's numbers: per policy × task type (and over all
 * types), quality with bootstrap CIs, latency percentiles, context statistics from the traces,
 * and paired bootstrap CIs for the difference between every two policies on the same tasks.
 */
import { evaluatedTotal } from '../../../shared/format.js';
import type { CompletionTrace } from '../../../shared/messages.js';
import type { ArmName, TaskResult } from '../driver/results.js';
import { quantile } from '../stats.js';
import type { TaskType } from '../tasks/types.js';
import { average, bootstrapMean, pairedBootstrap, type BootstrapOptions, type Interval } from './bootstrap.js';

/** A task type, or every type together. */
export type TypeGroup = TaskType | 'all';

/** Latency percentiles in ms (nearest rank). */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

/** The numbers of one policy on one task type. */
export interface GroupSummary {
  policy: ArmName;
  type: TypeGroup;
  tasks: number;
  /** Percent (0–100), as RepoShapley reports them. */
  em: Interval;
  es: Interval;
  idEm: number;
  idF1: number;
  /** Client-side latency of answered requests. */
  latency: Percentiles;
  /** Means over tasks with a trace. */
  promptTokens: number;
  candidates: number;
  kept: number;
  /** Share of traced tasks where the policy retrieved (decision `need`). */
  needRate: number;
  /** Reused prompt tokens over prompt tokens (sums over traced tasks). */
  reusedRatio: number;
  /**
   * What the model evaluated per completion, by stage (means over traces that report it; NaN
   * when none does): the cost a policy's decisions add or save.
   */
  evaluated: { trigger: number; selection: number; prompt: number; generated: number; total: number };
  /** Requests that timed out or failed. */
  failures: number;
  /** Tasks answered with no completion. */
  empty: number;
  typing?: TypingSummary;
  evidence?: EvidenceSummary;
}

/**
 * API tasks: how often the callee's definition reached the model, and EM with and without it
 * in the prompt (does the model use the evidence when it is there?).
 */
export interface EvidenceSummary {
  tasks: number;
  /** Shares (0–1) of `tasks`. */
  foundRate: number;
  inPromptRate: number;
  /** EM percent over the tasks with the definition in the prompt, and over the others (NaN when none). */
  emInPrompt: number;
  emNotInPrompt: number;
  /**
   * The selection's skill at finding the definition: the AUC of P(KEEP), covering candidates
   * against the others of the same task, pooled over tasks (0.5 = none, 1 = always ranked
   * first; NaN when no task had both), and the tasks and pairs it rests on.
   */
  keepAuc: number;
  keepAucTasks: number;
  keepAucPairs: number;
}

/** --typing mode aggregates (per keystroke request unless said otherwise). */
export interface TypingSummary {
  keystrokesPerTask: number;
  shownRate: number;
  cancelledRate: number;
  emptyRate: number;
  cacheHitRate: number;
  reusedRatio: number;
  /** Latency after the last keystroke: what the user waits once they stop typing. */
  settled: Percentiles;
  /** Keystroke to answer over every answered request, debounce excluded (TypingStats.keystrokeMs). */
  keystroke: Percentiles;
  /** Keystroke to answer of the requests the model answered (TypingStats.modelKeystrokeMs). */
  modelKeystroke: Percentiles;
  /** Arrival at the cursor (a jump) to its first ghost text (TypingStats.firstMs). */
  first: Percentiles;
  /** The arrivals' prompt tokens served from the KV cache (NaN in results from before it was kept). */
  arrivalReusedRatio: number;
}

/** Policy `a` minus policy `b` on the same tasks. */
export interface PairedDifference {
  a: ArmName;
  b: ArmName;
  type: TypeGroup;
  tasks: number;
  em: Interval;
  es: Interval;
}

/** Everything the report shows. */
export interface BenchSummary {
  groups: GroupSummary[];
  differences: PairedDifference[];
}

/** Summaries for every policy × (each type, all), and differences for every pair of policies. */
export function summarize(
  results: readonly TaskResult[], policies: readonly ArmName[], types: readonly TaskType[], bootstrap: BootstrapOptions = {},
): BenchSummary {
  const groups: GroupSummary[] = [];
  const differences: PairedDifference[] = [];
  for (const type of [...types, 'all'] as TypeGroup[]) {
    const ofType = results.filter((r) => type === 'all' || r.type === type);
    for (const policy of policies) groups.push(summarizeGroup(ofType.filter((r) => r.policy === policy), policy, type, bootstrap));
    for (let j = 1; j < policies.length; j++) {
      for (let i = 0; i < j; i++) differences.push(difference(ofType, policies[j]!, policies[i]!, type, bootstrap));
    }
  }
  return { groups, differences };
}

function summarizeGroup(results: readonly TaskResult[], policy: ArmName, type: TypeGroup, bootstrap: BootstrapOptions): GroupSummary {
  const traces = results.flatMap((r) => (r.trace ? [r.trace] : []));
  const summary: GroupSummary = {
    policy, type, tasks: results.length,
    em: bootstrapMean(results.map((r) => r.scores.em * 100), bootstrap),
    es: bootstrapMean(results.map((r) => r.scores.es), bootstrap),
    idEm: average(results.map((r) => r.scores.idEm * 100)),
    idF1: average(results.map((r) => r.scores.idF1 * 100)),
    latency: percentiles(results.map((r) => r.latencyMs)),
    promptTokens: average(traces.map((t) => t.tokens.prompt)),
    candidates: average(traces.map((t) => t.candidates.length)),
    kept: average(traces.map((t) => t.candidates.filter((c) => c.kept).length)),
    needRate: average(traces.map((t) => (t.decision === 'need' ? 1 : 0))),
    reusedRatio: ratio(traces.map((t) => t.tokens.reused), traces.map((t) => t.tokens.prompt)),
    evaluated: evaluatedMeans(traces),
    failures: results.filter((r) => r.outcome === 'timeout' || r.outcome === 'error').length,
    empty: results.filter((r) => r.outcome === 'empty').length,
  };
  const typing = summarizeTyping(results);
  if (typing) summary.typing = typing;
  const evidence = summarizeEvidence(results);
  if (evidence) summary.evidence = evidence;
  return summary;
}

function summarizeEvidence(results: readonly TaskResult[]): EvidenceSummary | undefined {
  const withEvidence = results.filter((r): r is TaskResult & { evidence: NonNullable<TaskResult['evidence']> } => r.evidence !== undefined);
  if (withEvidence.length === 0) return undefined;
  const inPrompt = withEvidence.filter((r) => r.evidence.inPrompt);
  const notInPrompt = withEvidence.filter((r) => !r.evidence.inPrompt);
  return {
    tasks: withEvidence.length,
    foundRate: average(withEvidence.map((r) => (r.evidence.found ? 1 : 0))),
    inPromptRate: inPrompt.length / withEvidence.length,
    emInPrompt: average(inPrompt.map((r) => r.scores.em * 100)),
    emNotInPrompt: average(notInPrompt.map((r) => r.scores.em * 100)),
    ...keepAuc(withEvidence.flatMap((r) => (r.evidence.keepRanking ? [r.evidence.keepRanking] : []))),
  };
}

function keepAuc(rankings: readonly { wins: number; pairs: number }[]): Pick<EvidenceSummary, 'keepAuc' | 'keepAucTasks' | 'keepAucPairs'> {
  const pairs = rankings.reduce((sum, r) => sum + r.pairs, 0);
  const wins = rankings.reduce((sum, r) => sum + r.wins, 0);
  return { keepAuc: pairs === 0 ? Number.NaN : wins / pairs, keepAucTasks: rankings.length, keepAucPairs: pairs };
}

function summarizeTyping(results: readonly TaskResult[]): TypingSummary | undefined {
  const stats = results.flatMap((r) => (r.typing ? [r.typing] : []));
  if (stats.length === 0) return undefined;
  const sum = (pick: (s: (typeof stats)[number]) => number) => stats.reduce((total, s) => total + pick(s), 0);
  const requests = sum((s) => s.requests);
  return {
    keystrokesPerTask: sum((s) => s.keystrokes) / stats.length,
    shownRate: sum((s) => s.shown) / requests,
    cancelledRate: sum((s) => s.cancelled) / requests,
    emptyRate: sum((s) => s.empty) / requests,
    cacheHitRate: sum((s) => s.cacheHits) / requests,
    reusedRatio: ratio(stats.map((s) => s.reusedTokens), stats.map((s) => s.promptTokens)),
    settled: percentiles(stats.map((s) => s.settledLatencyMs)),
    keystroke: percentiles(stats.flatMap((s) => s.keystrokeMs)),
    modelKeystroke: percentiles(stats.flatMap((s) => s.modelKeystrokeMs ?? [])),
    first: percentiles(stats.map((s) => s.firstMs)),
    arrivalReusedRatio: ratio(stats.map((s) => s.arrivalTokens?.reused ?? 0), stats.map((s) => s.arrivalTokens?.prompt ?? 0)),
  };
}

/** Policy `a` minus `b` over the tasks both ran (matched by task id). */
function difference(results: readonly TaskResult[], a: ArmName, b: ArmName, type: TypeGroup, bootstrap: BootstrapOptions): PairedDifference {
  const ofB = new Map(results.filter((r) => r.policy === b).map((r) => [r.taskId, r]));
  const pairs = results.filter((r) => r.policy === a && ofB.has(r.taskId)).map((r) => [r, ofB.get(r.taskId)!] as const);
  return { a, b, type, tasks: pairs.length, ...pairedScoreDifferences(pairs, bootstrap) };
}

/** EM (points) and ES of x − y over (x, y) results of the same tasks, with paired bootstrap intervals. */
export function pairedScoreDifferences(
  pairs: readonly (readonly [TaskResult, TaskResult])[], bootstrap: BootstrapOptions,
): { em: Interval; es: Interval } {
  return {
    em: pairedBootstrap(pairs.map(([x]) => x.scores.em * 100), pairs.map(([, y]) => y.scores.em * 100), bootstrap),
    es: pairedBootstrap(pairs.map(([x]) => x.scores.es), pairs.map(([, y]) => y.scores.es), bootstrap),
  };
}

/** p50 / p95 / p99 of the finite values. */
export function percentiles(values: readonly number[]): Percentiles {
  const finite = values.filter(Number.isFinite);
  return { p50: quantile(finite, 0.5), p95: quantile(finite, 0.95), p99: quantile(finite, 0.99) };
}

function ratio(numerators: readonly number[], denominators: readonly number[]): number {
  const total = denominators.reduce((a, b) => a + b, 0);
  return total > 0 ? numerators.reduce((a, b) => a + b, 0) / total : Number.NaN;
}

function evaluatedMeans(traces: readonly CompletionTrace[]): GroupSummary['evaluated'] {
  const stages = traces.flatMap((t) => (t.tokens.evaluated ? [t.tokens.evaluated] : []));
  const mean = (pick: (e: NonNullable<CompletionTrace['tokens']['evaluated']>) => number) => average(stages.map(pick));
  return {
    trigger: mean((e) => e.trigger), selection: mean((e) => e.selection), prompt: mean((e) => e.prompt),
    generated: mean((e) => e.generated), total: mean(evaluatedTotal),
  };
}
