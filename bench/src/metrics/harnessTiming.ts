/**
 * Where a run's time went, to judge the 15-minute budget for 300 tasks × 3 policies before the
 * default model exists: the harness's own cost per task (everything but the model's forward
 * passes: client, JSON-RPC, document sync, retrieval, prompt building, trace) is measured here
 * with any model, and the forward-pass time per task of the real model is added to project.
 */
import type { RepositoryRun } from '../driver/driveTasks.js';
import type { TaskResult } from '../driver/results.js';
import { average } from './bootstrap.js';
import { percentiles, type Percentiles } from './summary.js';

/** Timing of a whole run. */
export interface HarnessTiming {
  /** Task × policy runs. */
  runs: number;
  /** Harness wall time per run (open, request, trace, close). */
  cycleMs: Percentiles & { mean: number };
  /** Model forward passes per run (trace decision + selection + generation). */
  modelMs: { mean: number };
  /** cycle − forward passes: what the harness and server cost per run, whatever the model. */
  overheadMs: Percentiles & { mean: number };
  /** Per repository: spawn to indexed, plus the warm-up completions. */
  repositoryStartMs: { mean: number; total: number };
}

/** Timing from the results and the repository runs. */
export function harnessTiming(results: readonly TaskResult[], repositories: readonly RepositoryRun[]): HarnessTiming {
  const measured = results.filter((r) => r.cycleMs > 0);
  const model = measured.map((r) => (r.trace ? r.trace.timings.decisionMs + r.trace.timings.selectionMs + r.trace.timings.generationMs : 0));
  const overhead = measured.map((r, i) => r.cycleMs - model[i]!);
  const starts = repositories.map((r) => (r.startMs ?? 0) + Object.values(r.warmupMs).reduce((a: number, b) => a + (b ?? 0), 0));
  return {
    runs: measured.length,
    cycleMs: { ...percentiles(measured.map((r) => r.cycleMs)), mean: average(measured.map((r) => r.cycleMs)) },
    modelMs: { mean: average(model) },
    overheadMs: { ...percentiles(overhead), mean: average(overhead) },
    repositoryStartMs: { mean: average(starts), total: starts.reduce((a, b) => a + b, 0) },
  };
}

/**
 * Projected wall time of `runs` task runs over `repositories` repositories when the model's
 * forward passes take `modelMsPerRun` per run: runs × (harness overhead + model) + start-ups.
 */
export function projectWallMs(timing: HarnessTiming, runs: number, repositories: number, modelMsPerRun: number): number {
  return runs * (timing.overheadMs.mean + modelMsPerRun) + repositories * timing.repositoryStartMs.mean;
}
