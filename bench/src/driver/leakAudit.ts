/**
 * Checks that a task's target never reached the server: given tokens that occur on disk only in
 * the target (canaries), finds them in the retrieved candidates (their lines read as the server
 * saw them: the open buffer for the task's own file, the disk for the others), in the rendered
 * prompt and in the completion. Used by the canary test; any run can call it.
 */
import type { BenchTask } from '../tasks/types.js';
import type { TaskResult } from './results.js';
import { bufferOf } from './runTask.js';

/** A token found where it must not be. */
export interface Leak {
  taskId: string;
  policy: string;
  token: string;
  where: 'candidate' | 'prompt' | 'completion';
  /** For a candidate: `relPath:start-end`. */
  detail?: string;
}

/** Reads a workspace file (relPath under the task's root) from disk. */
export type ReadWorkspaceFile = (relPath: string) => string;

/** Lines [startLine, endLine) of a candidate as the server saw them. */
export function candidateText(
  task: Pick<BenchTask, 'relPath' | 'prefix' | 'suffix'>, candidate: { relPath: string; startLine: number; endLine: number },
  readDisk: ReadWorkspaceFile,
): string {
  const text = candidate.relPath === task.relPath ? bufferOf(task) : readDisk(candidate.relPath);
  return text.split('\n').slice(candidate.startLine, candidate.endLine).join('\n');
}

/** Every occurrence of `tokens` in the result's candidates, prompt and completion. */
export function findLeaks(task: BenchTask, result: TaskResult, tokens: readonly string[], readDisk: ReadWorkspaceFile): Leak[] {
  const leaks: Leak[] = [];
  const base = { taskId: task.id, policy: result.policy };
  for (const token of tokens) {
    for (const candidate of result.trace?.candidates ?? []) {
      if (candidateText(task, candidate, readDisk).includes(token)) {
        leaks.push({ ...base, token, where: 'candidate', detail: `${candidate.relPath}:${candidate.startLine}-${candidate.endLine}` });
      }
    }
    if (result.trace?.prompt?.includes(token)) leaks.push({ ...base, token, where: 'prompt' });
    if (result.completion.includes(token)) leaks.push({ ...base, token, where: 'completion' });
  }
  return leaks;
}
