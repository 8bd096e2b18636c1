/**
 * The paired tasks tuneThreshold sweeps (thresholdSweep.ts), from bench results: per task,
 * P(<NEED>) and the scores of the DONE and NEED branches.
 *
 * Two readings of "the NEED branch":
 * - `reposhapley` (t_c tuning, the paper's Algorithm 1): the policy's own NEED branch, so its run
 *   must have used --need-threshold 0; `none`'s results are the DONE branch.
 * - `full` (what the trigger is asked to know when it is trained on the full-helps target): the
 *   NEED branch is Full-Retrieve's completion of the same task, and P(<NEED>) is read from any
 *   `reposhapley` result, whichever branch it took; a run at --need-threshold 1 reads it at the
 *   cost of `none` and its DONE branch is `none`'s completion, so `none` need not run apart.
 *   Full-Retrieve's completions do not depend on the control rows (generation masks the control
 *   tokens), so one `full` run serves the P(NEED) of several packs (`fullResults`).
 */
import type { TaskResult } from '../../bench/src/driver/results.js';
import type { PairedTask } from './thresholdSweep.js';

export type NeedBranch = 'reposhapley' | 'full';
export const NEED_BRANCHES: readonly NeedBranch[] = ['reposhapley', 'full'];

/** An empty completion is an answer (it scores 0); a timeout or an error says nothing of a branch. */
const isAnswer = (result: TaskResult) => result.outcome === 'ok' || result.outcome === 'empty';

export function pairBranches(
  results: readonly TaskResult[], doneResults: readonly TaskResult[], needBranch: NeedBranch = 'reposhapley',
  fullResults: readonly TaskResult[] = results,
): PairedTask[] {
  const byTask = (policy: string, from: readonly TaskResult[]) =>
    new Map(from.filter((r) => r.policy === policy).map((r) => [r.taskId, r]));
  const none = byTask('none', doneResults);
  const full = byTask('full', fullResults);
  const tasks: PairedTask[] = [];
  for (const triggered of results.filter((r) => r.policy === 'reposhapley')) {
    const need = needBranch === 'full' ? full.get(triggered.taskId) : triggered;
    const ownDone = needBranch === 'full' && triggered.trace?.decision === 'done' ? triggered : undefined;
    const done = none.get(triggered.taskId) ?? ownDone;
    if (!need || !done || !isAnswer(need) || !isAnswer(done)) continue;
    const p = triggered.trace?.needProbability;
    if (needBranch === 'reposhapley' && (triggered.trace?.decision !== 'need' || p === undefined)) {
      throw new Error(`${triggered.taskId}: reposhapley did not take the NEED branch; rerun the bench with --need-threshold 0`);
    }
    if (p === undefined) continue;
    tasks.push({ needProbability: p, done: done.scores, need: need.scores });
  }
  return tasks;
}
