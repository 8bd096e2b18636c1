/**
 * Two bench runs compared task by task: one policy of run A against one policy of run B, matched
 * by task id (the same --seed, --limit and packages draw the same tasks). This is how a model
 * candidate is judged against the shipped one ("the bench decides"): two models cannot share
 * one bench run, but their runs share the tasks, so the difference gets a paired bootstrap
 * interval like the policy differences inside one report.
 */
import type { TaskResult } from '../driver/results.js';
import { average, type BootstrapOptions, type Interval } from '../metrics/bootstrap.js';
import { pairedScoreDifferences, type TypeGroup } from '../metrics/summary.js';
import { TASK_TYPES } from '../tasks/types.js';

/** One side of the comparison: a run's results and the policy taken from it. */
export interface RunSide {
  label: string;
  results: readonly TaskResult[];
  policy: string;
}

export interface RunComparison {
  type: TypeGroup;
  tasks: number;
  a: { em: number; es: number; promptTokens: number };
  b: { em: number; es: number; promptTokens: number };
  /** A − B, paired over the tasks. */
  em: Interval;
  es: Interval;
}

export interface ComparedRuns {
  rows: RunComparison[];
  /** Task ids that only one side ran (a different draw, or a task that failed to start). */
  unpaired: number;
}

export function compareRuns(a: RunSide, b: RunSide, bootstrap: BootstrapOptions = {}): ComparedRuns {
  const ofA = byTask(a);
  const ofB = byTask(b);
  const pairs = [...ofA].flatMap(([id, x]) => (ofB.has(id) ? [[x, ofB.get(id)!] as const] : []));
  const unpaired = ofA.size + ofB.size - 2 * pairs.length;
  const groups: TypeGroup[] = [...TASK_TYPES.filter((t) => pairs.some(([x]) => x.type === t)), 'all'];
  const rows = groups.map((type) => {
    const subset = pairs.filter(([x]) => type === 'all' || x.type === type);
    const side = (pick: (p: (typeof subset)[number]) => TaskResult) => ({
      em: 100 * average(subset.map((p) => pick(p).scores.em)),
      es: average(subset.map((p) => pick(p).scores.es)),
      promptTokens: average(subset.map((p) => pick(p).trace?.tokens.prompt ?? 0)),
    });
    return { type, tasks: subset.length, a: side(([x]) => x), b: side(([, y]) => y), ...pairedScoreDifferences(subset, bootstrap) };
  });
  return { rows, unpaired };
}

function byTask(side: RunSide): Map<string, TaskResult> {
  const map = new Map<string, TaskResult>();
  for (const result of side.results.filter((r) => r.policy === side.policy)) {
    if (map.has(result.taskId)) throw new Error(`${side.label}: task ${result.taskId} twice under policy ${side.policy}`);
    map.set(result.taskId, result);
  }
  if (map.size === 0) throw new Error(`${side.label}: no results under policy ${side.policy}`);
  return map;
}
