/**
 * Runs every task under every arm (a policy, and a prompt layout when layouts are compared) with
 * the same model in one run: one server per repository (indexed once), the arms one after another
 * on it (switched by a settings push; a layout change reloads the model), each preceded by a
 * warm-up completion so model loading is not charged to the first task. Repositories interleave
 * the arms, so slow drift of the machine's load (a background job on two cores) spreads over all
 * arms instead of landing on one.
 */
import { pathToFileURL } from 'node:url';
import type { SettingsPatch } from '../../../shared/settings.js';
import { scoreCompletion } from '../metrics/textMetrics.js';
import type { BenchTask } from '../tasks/types.js';
import { resultKey, type FinishedResults } from './journal.js';
import { armName, type Arm, type ArmName, type TaskResult } from './results.js';
import { bufferOf, runTask, type RunLimits } from './runTask.js';
import { ServerSession } from './serverSession.js';
import { runTypingTask, type TypingOptions } from './typingReplay.js';

/** How to drive the server. */
export interface DriveOptions {
  arms: readonly Arm[];
  /** initializationOptions for every server (model, threads, maxTokens, tracePrompt...). */
  settings: SettingsPatch;
  /** Replay typing instead of one invoked request per task. */
  typing?: TypingOptions;
  limits: RunLimits;
  serverScript?: string;
  env?: NodeJS.ProcessEnv;
  /** Append every server's log to this file (serverSession.ts `logFile`). */
  serverLog?: string;
  /** Results of an interrupted run (the journal, `--resume`): recorded as they are, not run again. */
  finished?: FinishedResults;
  /** Called after every task result, measured or taken from `finished`. */
  onResult?: (result: TaskResult, measured: boolean) => void;
  /** Called when a repository starts (indexing) and is ready. */
  onRepository?: (event: RepositoryRun) => void;
}

/** Per repository: server start-up and warm-up costs. */
export interface RepositoryRun {
  repository: string;
  root: string;
  /** Files the server indexed. */
  indexedFiles?: number;
  /** From spawn to the indexing pass's end status. */
  startMs?: number;
  /** Per arm: the warm-up completion's client latency (includes loading the model the first time). */
  warmupMs: Partial<Record<ArmName, number>>;
  /** Every result came from the journal of an interrupted run: no server was started. */
  resumed?: boolean;
  error?: string;
}

/** The model cannot be used: the run stops, with the server's explanation. */
export class ModelUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelUnavailableError';
  }
}

/** Runs all tasks under all arms; results are in (repository, arm, task) order. */
export async function driveTasks(tasks: readonly BenchTask[], options: DriveOptions): Promise<{ results: TaskResult[]; repositories: RepositoryRun[] }> {
  const results: TaskResult[] = [];
  const repositories: RepositoryRun[] = [];
  for (const group of groupByRoot(tasks)) {
    const run: RepositoryRun = { repository: group[0]!.repository, root: group[0]!.root, warmupMs: {} };
    repositories.push(run);
    const record = (result: TaskResult, measured = true) => {
      results.push(result);
      options.onResult?.(result, measured);
    };
    if (group.every((task) => options.arms.every((arm) => finishedResult(options, armName(arm), task)))) {
      for (const arm of options.arms) for (const task of group) record(finishedResult(options, armName(arm), task)!, false);
      run.resumed = true;
      continue;
    }
    await driveRepository(group, options, run, record);
  }
  return { results, repositories };
}

async function driveRepository(
  tasks: readonly BenchTask[], options: DriveOptions, run: RepositoryRun, record: (result: TaskResult, measured?: boolean) => void,
): Promise<void> {
  const started = performance.now();
  options.onRepository?.(run);
  // Typing measures the server as users get it (debounced); otherwise requests are not debounced.
  const settings: SettingsPatch = { ...options.settings, ...armSettings(options.arms[0]!), ...(options.typing ? {} : { debounceMs: 0 }) };
  const recorded = new Set<string>();
  let session: ServerSession | undefined;
  try {
    session = await ServerSession.start({ root: run.root, settings, serverScript: options.serverScript, env: options.env, logFile: options.serverLog });
    const indexed = await session.waitUntilIndexed();
    run.indexedFiles = indexed.indexedFiles;
    run.startMs = performance.now() - started;
    options.onRepository?.(run);
    for (const arm of options.arms) {
      const name = armName(arm);
      const toRun = tasks.filter((task) => !finishedResult(options, name, task));
      if (toRun.length > 0) {
        await session.configure(armSettings(arm));
        run.warmupMs[name] = await warmUp(session, toRun[0]!, options);
      }
      for (const task of tasks) {
        const earlier = finishedResult(options, name, task);
        record(earlier ?? await runOne(session, task, name, options), earlier === undefined);
        recorded.add(runKey(name, task));
      }
    }
  } catch (error) {
    if (error instanceof ModelUnavailableError) throw error;
    run.error = error instanceof Error ? error.message : String(error);
    options.onRepository?.(run);
    for (const name of options.arms.map(armName)) {
      for (const task of tasks) {
        if (recorded.has(runKey(name, task))) continue;
        const earlier = finishedResult(options, name, task);
        record(earlier ?? failedResult(task, name, run.error), earlier === undefined);
      }
    }
  } finally {
    await session?.dispose();
  }
}

/** The settings an arm pushes: its policy, and its layout and budgets when it names them. */
function armSettings(arm: Arm): SettingsPatch {
  return {
    policy: arm.policy,
    ...(arm.layout ? { layout: arm.layout } : {}),
    ...(arm.budgets ? { budgets: arm.budgets } : {}),
  };
}

function runKey(arm: ArmName, task: BenchTask): string {
  return resultKey(arm, task.id);
}

function finishedResult(options: DriveOptions, arm: ArmName, task: BenchTask): TaskResult | undefined {
  return options.finished?.get(resultKey(arm, task.id));
}

function runOne(session: ServerSession, task: BenchTask, policy: ArmName, options: DriveOptions): Promise<TaskResult> {
  return options.typing
    ? runTypingTask(session, task, policy, options.limits, options.typing)
    : runTask(session, task, policy, options.limits);
}

/**
 * One unmeasured completion at `task`'s cursor: loads the model and warms caches. A missing or
 * unusable model stops the run here, with the server's own message (it says how to fix it).
 */
async function warmUp(session: ServerSession, task: BenchTask, options: DriveOptions): Promise<number> {
  const uri = pathToFileURL(task.absPath).href;
  await session.open(uri, bufferOf(task));
  const { answer } = session.requestInline(uri, task.cursor, task.mode, 1, Math.max(options.limits.requestTimeoutMs, 120_000));
  const { latencyMs } = await answer;
  await session.close(uri);
  const status = session.statuses[session.statuses.length - 1];
  if (status?.state === 'no-model') throw new ModelUnavailableError(status.message);
  return latencyMs;
}

function failedResult(task: BenchTask, policy: ArmName, error: string): TaskResult {
  return {
    taskId: task.id, type: task.type, repository: task.repository, policy, completion: '', target: task.target,
    outcome: 'error', error: error.split('\n', 1)[0], latencyMs: Number.NaN, cycleMs: 0, scores: scoreCompletion('', task.target, task.relPath),
  };
}

/** Tasks per workspace root, in first-seen order (the builder sorts by repository). */
function groupByRoot(tasks: readonly BenchTask[]): BenchTask[][] {
  const groups = new Map<string, BenchTask[]>();
  for (const task of tasks) {
    const group = groups.get(task.root);
    if (group) group.push(task);
    else groups.set(task.root, [task]);
  }
  return [...groups.values()];
}
