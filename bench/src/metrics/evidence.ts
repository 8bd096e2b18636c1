/**
 * Whether the cross-file evidence an API task needs reached the model: the callee's definition
 * among the retrieved candidates, and in the prompt (a kept candidate). It bounds what `full`
 * can gain over `none` on API tasks, separating what retrieval misses from what the model
 * ignores (Rivet's finding step against RepoShapley's selection and generation).
 */
import type { CompletionTrace, TraceCandidate } from '../../../shared/messages.js';
import type { BenchTask } from '../tasks/types.js';

export interface CalleeEvidence {
  /** A candidate covers the definition's first line, or an import outline lists it. */
  found: boolean;
  /** A kept candidate (one the prompt carries) covers it. */
  inPrompt: boolean;
  /**
   * How the model's selection ranked the definition (reposhapley on NEED): over every pair of a
   * covering and a non-covering candidate that both got a P(KEEP), `wins` counts the pairs where
   * the covering one scored higher (ties count half). Absent when no such pair exists.
   */
  keepRanking?: { wins: number; pairs: number };
}

/** Evidence of an API task's callee in a trace; undefined for tasks without a callee. */
export function calleeEvidence(task: Pick<BenchTask, 'callee'>, trace: Pick<CompletionTrace, 'candidates'>): CalleeEvidence | undefined {
  const callee = task.callee;
  if (!callee) return undefined;
  const covers = (c: TraceCandidate): boolean => (c.lists
    ? c.lists.some((d) => d.relPath === callee.relPath && d.startLine === callee.startLine)
    : c.relPath === callee.relPath && c.startLine <= callee.startLine && callee.startLine < c.endLine);
  const covering = trace.candidates.filter(covers);
  const evidence: CalleeEvidence = { found: covering.length > 0, inPrompt: covering.some((c) => c.kept) };
  const scored = trace.candidates.filter((c) => c.keepProbability !== undefined);
  const keepRanking = rankingPairs(scored.filter(covers), scored.filter((c) => !covers(c)));
  if (keepRanking) evidence.keepRanking = keepRanking;
  return evidence;
}

/** Pairwise wins of P(KEEP) of `positives` over `negatives` (the numerator and denominator of an AUC). */
function rankingPairs(positives: readonly TraceCandidate[], negatives: readonly TraceCandidate[]): CalleeEvidence['keepRanking'] {
  if (positives.length === 0 || negatives.length === 0) return undefined;
  let wins = 0;
  for (const p of positives) {
    for (const n of negatives) wins += p.keepProbability! > n.keepProbability! ? 1 : p.keepProbability === n.keepProbability ? 0.5 : 0;
  }
  return { wins, pairs: positives.length * negatives.length };
}
