/**
 * Whether the cross-file evidence an API task needs reached the model: the callee's definition
 * among the retrieved candidates, and in the prompt (a kept candidate). It bounds what `full`
 * can gain over `none` on API tasks, separating what retrieval misses from what the model
 * ignores (Rivet's finding step against RepoShapley's selection and generation).
 */
import type { CompletionTrace } from '../../../shared/messages.js';
import type { BenchTask } from '../tasks/types.js';

export interface CalleeEvidence {
  /** A candidate covers the definition's first line, or an import outline lists it. */
  found: boolean;
  /** A kept candidate (one the prompt carries) covers it. */
  inPrompt: boolean;
}

/** Evidence of an API task's callee in a trace; undefined for tasks without a callee. */
export function calleeEvidence(task: Pick<BenchTask, 'callee'>, trace: Pick<CompletionTrace, 'candidates'>): CalleeEvidence | undefined {
  const callee = task.callee;
  if (!callee) return undefined;
  const covering = trace.candidates.filter((c) => (c.lists
    ? c.lists.some((d) => d.relPath === callee.relPath && d.startLine === callee.startLine)
    : c.relPath === callee.relPath && c.startLine <= callee.startLine && callee.startLine < c.endLine));
  return { found: covering.length > 0, inPrompt: covering.some((c) => c.kept) };
}
