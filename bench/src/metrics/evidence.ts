/**
 * Whether the cross-file evidence an API task needs reached the model: the callee's definition
 * among the retrieved candidates, and in the prompt (a kept candidate). It bounds what `full`
 * can gain over `none` on API tasks, separating what retrieval misses from what the model
 * ignores (Rivet's finding step against RepoShapley's selection and generation).
 */
import type { CompletionTrace, TraceCandidate } from '../../../shared/messages.js';
import type { BenchTask } from '../tasks/types.js';
import { concordantPairs } from './ranking.js';

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

/** Where a definition starts. */
export type DefinitionStart = { relPath: string; startLine: number };

/** A candidate covers a definition when it holds the definition's first line, or (an import outline) lists it. */
export function coversDefinition(
  candidate: { relPath: string; startLine: number; endLine: number; lists?: readonly DefinitionStart[] }, definition: DefinitionStart,
): boolean {
  return candidate.lists
    ? candidate.lists.some((d) => d.relPath === definition.relPath && d.startLine === definition.startLine)
    : candidate.relPath === definition.relPath && candidate.startLine <= definition.startLine && definition.startLine < candidate.endLine;
}

/** Evidence of an API task's callee in a trace; undefined for tasks without a callee. */
export function calleeEvidence(task: Pick<BenchTask, 'callee'>, trace: Pick<CompletionTrace, 'candidates'>): CalleeEvidence | undefined {
  const callee = task.callee;
  if (!callee) return undefined;
  const covering = trace.candidates.filter((c) => coversDefinition(c, callee));
  const evidence: CalleeEvidence = { found: covering.length > 0, inPrompt: covering.some((c) => c.kept) };
  const scored = trace.candidates.filter((c) => c.keepProbability !== undefined);
  const keepOf = (candidates: readonly TraceCandidate[]): number[] => candidates.map((c) => c.keepProbability!);
  const keepRanking = concordantPairs(keepOf(scored.filter((c) => covering.includes(c))), keepOf(scored.filter((c) => !covering.includes(c))));
  if (keepRanking.pairs > 0) evidence.keepRanking = keepRanking;
  return evidence;
}
