/**
 * `--list-tasks`: the tasks a run would drive and how many each repository gave, without
 * starting a server or loading a model. For choosing packages and checking task rules.
 */
import { markdownTable } from './report/format.js';
import type { TaskBuildStats } from './tasks/buildTasks.js';
import type { BenchTask, TaskType } from './tasks/types.js';

/** Longest target shown per task line. */
const MAX_TARGET_CHARS = 100;

/** One line per task (id, target, API callee), then a table of counts per repository. */
export function taskListing(tasks: readonly BenchTask[], stats: readonly TaskBuildStats[], types: readonly TaskType[]): string {
  return [
    `## Tasks (${tasks.length})`, '',
    ...tasks.map(taskLine), '',
    '## Per repository', '',
    countsTable(stats, types), '',
  ].join('\n');
}

/** `id  "target"  -> relPath:line qualifiedName (kind)`. */
export function taskLine(task: BenchTask): string {
  const target = task.target.length > MAX_TARGET_CHARS ? `${task.target.slice(0, MAX_TARGET_CHARS)}…` : task.target;
  const callee = task.callee ? `  -> ${task.callee.relPath}:${task.callee.startLine + 1} ${task.callee.qualifiedName} (${task.callee.kind})` : '';
  return `${task.id}  ${JSON.stringify(target)}${callee}`;
}

/** Files, candidates and chosen tasks per repository and type, with a total row. */
export function countsTable(stats: readonly TaskBuildStats[], types: readonly TaskType[]): string {
  const header = ['repository', 'files', ...types.flatMap((type) => [`${type} candidates`, `${type} chosen`])];
  const row = (name: string, s: Pick<TaskBuildStats, 'files' | 'candidates' | 'chosen'>) =>
    [name, String(s.files), ...types.flatMap((type) => [String(s.candidates[type]), String(s.chosen[type])])];
  const total = stats.reduce((sum, s) => ({
    files: sum.files + s.files,
    candidates: addCounts(sum.candidates, s.candidates),
    chosen: addCounts(sum.chosen, s.chosen),
  }), { files: 0, candidates: { line: 0, api: 0, block: 0 }, chosen: { line: 0, api: 0, block: 0 } });
  return markdownTable(header, [...stats.map((s) => row(s.repository, s)), row('**total**', total)]);
}

function addCounts(a: Record<TaskType, number>, b: Record<TaskType, number>): Record<TaskType, number> {
  return { line: a.line + b.line, api: a.api + b.api, block: a.block + b.block };
}
