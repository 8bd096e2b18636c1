/**
 * Tuning t_c (Algorithm 1's threshold on P(<NEED>)) from paired completions: for each task the
 * completion without retrieval (policy `none` = the DONE branch) and with the model's own
 * selection (policy `reposhapley` at t_c = 0, so the NEED branch always runs and P(<NEED>) is
 * traced). For any t_c the policy's outcome on a task is then known exactly: the NEED branch
 * where P(<NEED>) ≥ t_c, else the DONE branch. The chosen t_c maximizes mean ES, then EM, then
 * retrieves least. `triggerSkill` says whether P(<NEED>) knows anything of which branch wins: an
 * argmax over a couple of hundred tasks finds a "best" t_c even when it knows nothing.
 */
import { concordantPairs } from '../../bench/src/metrics/ranking.js';

/** One task: P(<NEED>) and the scores of both branches. */
export interface PairedTask {
  needProbability: number;
  done: { es: number; em: number };
  need: { es: number; em: number };
}

export interface SweepPoint {
  threshold: number;
  es: number;
  em: number;
  needRate: number;
}

/** The policy's mean scores at `threshold`. */
export function scoreAt(tasks: readonly PairedTask[], threshold: number): SweepPoint {
  let es = 0;
  let em = 0;
  let needs = 0;
  for (const task of tasks) {
    const branch = task.needProbability >= threshold ? task.need : task.done;
    if (branch === task.need) needs++;
    es += branch.es;
    em += branch.em;
  }
  const n = Math.max(1, tasks.length);
  return { threshold, es: es / n, em: (100 * em) / n, needRate: needs / n };
}

/**
 * Every threshold that changes a decision (each task's P(<NEED>), and just above the largest, where
 * nothing retrieves), scored; the best by ES, then EM, then the lower NEED rate.
 */
export function sweepThresholds(tasks: readonly PairedTask[]): { best: SweepPoint; points: SweepPoint[] } {
  if (tasks.length === 0) throw new Error('no paired tasks to tune t_c on');
  const cuts = [...new Set([0, ...tasks.map((t) => t.needProbability)])].sort((a, b) => a - b);
  const above = Math.min(1, cuts[cuts.length - 1]! + 1e-6);
  const points = [...cuts, above].map((t) => scoreAt(tasks, t));
  const best = points.reduce((a, b) => (better(b, a) ? b : a));
  return { best, points };
}

function better(a: SweepPoint, b: SweepPoint): boolean {
  const tolerance = 1e-9;
  if (Math.abs(a.es - b.es) > tolerance) return a.es > b.es;
  if (Math.abs(a.em - b.em) > tolerance) return a.em > b.em;
  return a.needRate < b.needRate;
}

/** How well P(<NEED>) ranks the tasks where the NEED branch wins above those where DONE wins. */
export interface TriggerSkill {
  /** Tasks whose branches score differently (ES); ties say nothing about the trigger. */
  decisive: number;
  /** Of them, those where the NEED branch scores higher. */
  needWins: number;
  /** Probability that a NEED-win task has the higher P(<NEED>) than a DONE-win task (ties half): 0.5 = no skill. */
  auc: number;
  /** Mean ES with a perfect trigger (the better branch everywhere): the sweep's ceiling. */
  oracleEs: number;
}

export function triggerSkill(tasks: readonly PairedTask[]): TriggerSkill {
  const needWins = tasks.filter((t) => t.need.es > t.done.es).map((t) => t.needProbability);
  const doneWins = tasks.filter((t) => t.need.es < t.done.es).map((t) => t.needProbability);
  const { wins: concordant, pairs } = concordantPairs(needWins, doneWins);
  const oracleEs = tasks.reduce((sum, t) => sum + Math.max(t.need.es, t.done.es), 0) / Math.max(1, tasks.length);
  return { decisive: needWins.length + doneWins.length, needWins: needWins.length, auc: pairs > 0 ? concordant / pairs : 0.5, oracleEs };
}
