/**
 * Writes a report folder (bench/reports/<timestamp>/, gitignored): results.json with every task
 * result, summary.md with the tables, chart.svg.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RepositoryRun } from '../driver/driveTasks.js';
import type { ArmName, TaskResult } from '../driver/results.js';
import type { HarnessTiming } from '../metrics/harnessTiming.js';
import type { BenchSummary, TypeGroup } from '../metrics/summary.js';
import type { TaskBuildStats } from '../tasks/buildTasks.js';
import type { BenchTask, TaskType } from '../tasks/types.js';
import { reportMarkdown, type ReportMeta } from './markdown.js';
import { renderChart } from './svgChart.js';

/** Everything a report holds. */
export interface ReportData {
  meta: ReportMeta;
  policies: readonly ArmName[];
  types: readonly TaskType[];
  tasks: readonly BenchTask[];
  taskStats: readonly TaskBuildStats[];
  repositories: readonly RepositoryRun[];
  results: readonly TaskResult[];
  summary: BenchSummary;
  timing: HarnessTiming;
}

/** The files written. */
export interface ReportFiles {
  dir: string;
  json: string;
  markdown: string;
  svg: string;
}

/** A folder name from a date: `2026-11-29T12-34-56Z`. */
export function timestampFolder(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** Writes the three files into `dir`; prompts stay in the JSON only when `keepPrompts`. */
export async function writeReport(dir: string, data: ReportData, keepPrompts = false): Promise<ReportFiles> {
  await mkdir(dir, { recursive: true });
  const files: ReportFiles = {
    dir, json: path.join(dir, 'results.json'), markdown: path.join(dir, 'summary.md'), svg: path.join(dir, 'chart.svg'),
  };
  const groups: TypeGroup[] = [...data.types, 'all'];
  await writeFile(files.json, `${JSON.stringify(reportJson(data, keepPrompts), null, 1)}\n`);
  await writeFile(files.markdown, reportMarkdown(data.meta, data.summary, data.timing));
  await writeFile(files.svg, renderChart(data.summary, data.results, data.policies, groups));
  return files;
}

/** The JSON document: tasks without their (large) prefix and suffix, results, summary. */
function reportJson(data: ReportData, keepPrompts: boolean): unknown {
  return {
    meta: data.meta,
    policies: data.policies,
    types: data.types,
    taskStats: data.taskStats,
    repositories: data.repositories,
    tasks: data.tasks.map(({ prefix: _prefix, suffix: _suffix, ...task }) => task),
    results: data.results.map((result) => {
      if (keepPrompts || !result.trace?.prompt) return result;
      const { prompt: _prompt, ...trace } = result.trace;
      return { ...result, trace };
    }),
    summary: data.summary,
    timing: data.timing,
  };
}
