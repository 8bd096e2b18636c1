/** The table of searchErrors.ts: per task type and context, EM, search errors and the evidence's pull. */
import { TASK_TYPES, type TaskType } from './tasks/types.js';

export const CONTEXTS = ['none', 'full'] as const;
export type ContextName = (typeof CONTEXTS)[number];

export interface Probe {
  completion: string;
  em: boolean;
  likelihoodTarget: number;
  likelihoodGreedy: number;
}

export interface Row {
  taskId: string;
  type: TaskType;
  target: string;
  probes: Record<ContextName, Probe>;
}

/** Counts per task type and context: EM, search errors, and the evidence's pull toward Y. */
export function searchErrorTable(rows: readonly Row[]): string {
  const lines = [
    '| type | context | tasks | EM | ℓ(Y) > ℓ(greedy), not EM (search errors) | ℓ(Y) > ℓ(greedy) − 1, not EM | mean ℓ(Y) − ℓ(Y ∣ none) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const type of TASK_TYPES) {
    const ofType = rows.filter((r) => r.type === type);
    if (ofType.length === 0) continue;
    for (const context of CONTEXTS) {
      const probes = ofType.map((r) => r.probes[context]);
      const misses = probes.filter((p) => !p.em);
      const searchErrors = misses.filter((p) => p.likelihoodTarget > p.likelihoodGreedy).length;
      const near = misses.filter((p) => p.likelihoodTarget > p.likelihoodGreedy - 1).length;
      const pull = ofType.reduce((sum, r) => sum + r.probes[context].likelihoodTarget - r.probes.none.likelihoodTarget, 0) / ofType.length;
      lines.push(`| ${type} | ${context} | ${ofType.length} | ${probes.filter((p) => p.em).length} | ${searchErrors} | ${near} | ${pull.toFixed(2)} nats |`);
    }
  }
  return lines.join('\n') + '\n';
}

