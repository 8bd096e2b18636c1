/**
 * A benchmark run, start to end: fetch the packages, build the tasks, drive the server under
 * every policy, summarize, write the report folder (and, when asked, the docs table).
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { modelSettingsFromArgument } from '../../server/src/completion/modelChoice.js';
import type { LayoutPreference, PolicyName, PromptBudgets, SettingsPatch } from '../../shared/settings.js';
import { BENCH_LANGUAGES, type BenchLanguageId } from './benchLanguages.js';
import { driveTasks } from './driver/driveTasks.js';
import { borrowResults, journalOrigins, resultKey, RunJournal, SERVED_KEY, type RunIdentity } from './driver/journal.js';
import { servedFiles } from './driver/servedFiles.js';
import type { TypingOptions } from './driver/typingReplay.js';
import { harnessTiming, type HarnessTiming } from './metrics/harnessTiming.js';
import { summarize, type BenchSummary } from './metrics/summary.js';
import type { ProgressReporter } from './progress.js';
import { updateDocSection } from './report/docsSection.js';
import { differenceTable, evidenceTable, qualityTable, timingTable, typingTable, type ReportMeta } from './report/markdown.js';
import { writeReport, type ReportFiles } from './report/writeReport.js';
import { buildTasks, type Repository } from './tasks/buildTasks.js';
import { agreementMarkdown, compareLocalRemote } from './compare/modelServerComparison.js';
import { armName, type Arm, type TaskResult } from './driver/results.js';
import type { TaskType } from './tasks/types.js';

/** Everything a run needs; the CLI fills it from flags. */
export interface BenchOptions {
  /** GGUF path; undefined lets the server pick (REPOSHAPLEY_MODEL, then the bundled model). */
  model?: string;
  /** A LoRA adapter GGUF on the model (the adapterPath setting). */
  adapter?: string;
  policies: PolicyName[];
  types: TaskType[];
  limit: number;
  seed: number;
  /**
   * Whose packages and files give tasks; undefined is Python (left out for Python, so runs
   * journaled before there were other languages still resume).
   */
  language?: BenchLanguageId;
  packages: string[];
  perFileCap: number;
  typing?: TypingOptions;
  threads?: number;
  maxTokens?: number;
  /** Prompt budgets sent to the server; default the server's. */
  budgets?: PromptBudgets;
  /** Budget sets to compare: every policy runs under each, in one run (arms `policy@p-s-c`). */
  budgetSets?: PromptBudgets[];
  /** Prompt layout (settings `layout`); default the server's. */
  layout?: LayoutPreference;
  /** Layouts to compare: every policy runs under each, in one run (arms `policy@layout`). */
  layouts?: LayoutPreference[];
  /** t_c for the reposhapley policy (0 = always NEED, the "no trigger" ablation); default the model's. */
  needThreshold?: number;
  /** The kvShiftReuse setting; default the server's. */
  kvShiftReuse?: boolean;
  /** The adaptiveThreads setting; default the server's. */
  adaptiveThreads?: boolean;
  /** The sharedModelHost setting; default the server's (shared). */
  sharedModelHost?: boolean;
  /** The keepCandidatesNearLines setting; default the server's. */
  keepCandidatesNearLines?: number;
  requestTimeoutMs: number;
  resamples: number;
  outDir: string;
  /** Ask the server for rendered prompts and keep them in results.json. */
  tracePrompts: boolean;
  /** Append the servers' logs (debug level) to this file. */
  serverLog?: string;
  /** The page to write the tables into (docs/bench-latest.md), if any. */
  docsPath?: string;
  /** The command line, for the report. */
  command: string;
  /** Continue the interrupted run whose journal is in `outDir` (same flags): only what it lacks runs. */
  resume?: boolean;
  /** A report folder whose run differs only in its policies (or t_c): the arms both ran are copied, not measured. */
  reuseFrom?: string;
  /** Debian package cache (default ${REPOSHAPLEY_CACHE:-~/.cache/reposhapley}). */
  cacheDir?: string;
  /**
   * A llama-server URL: the tasks run a second time with the model there (`modelServer`), and
   * the report gets `model-server.md` comparing the two runs task by task.
   */
  modelServer?: string;
}

/** What a run produced. */
export interface BenchOutcome {
  files: ReportFiles;
  summary: BenchSummary;
  timing: HarnessTiming;
}

/** Runs the benchmark and writes its report. */
export async function runBench(options: BenchOptions, progress: ProgressReporter): Promise<BenchOutcome> {
  const started = new Date();
  const loadAverage = os.loadavg()[0]!;
  const { tasks, stats } = await fetchAndBuildTasks(options, progress);
  for (const s of stats) {
    progress.log(`${s.repository}: ${s.files} files; candidates line ${s.candidates.line}, api ${s.candidates.api}, block ${s.candidates.block}; ` +
      `chosen ${s.chosen.line} / ${s.chosen.api} / ${s.chosen.block}`);
  }
  if (tasks.length === 0) throw new Error('no tasks: the packages have no candidate lines for the chosen task types');
  const arms = benchArms(options);
  const { identity, legacyIdentity } = await runIdentity(options);
  const opened = RunJournal.open(options.outDir, identity, options.resume === true, legacyIdentity);
  const { journal } = opened;
  const finished = new Map(opened.finished);
  if (finished.size > 0) progress.log(`resuming: ${finished.size} results from ${journal.file}`);
  const reused = options.reuseFrom ? reuseResults(options.reuseFrom, { identity, legacyIdentity }, arms, journal, finished) : 0;
  if (reused > 0) progress.log(`reusing: ${reused} results of ${options.reuseFrom}`);
  progress.start(tasks.length * arms.length * (options.modelServer ? 2 : 1), 'starting');
  const drive = async (settings: SettingsPatch, label: string, onMeasured?: (result: TaskResult) => void) => driveTasks(tasks, {
    arms, settings, typing: options.typing, serverLog: options.serverLog,
    limits: { requestTimeoutMs: options.requestTimeoutMs },
    ...(onMeasured ? { finished } : {}),
    onResult: (result, measured) => {
      if (measured) onMeasured?.(result);
      progress.tick(`${label}${result.repository} ${result.policy}`);
    },
    onRepository: (run) => { if (run.error) progress.log(`${label}${run.repository}: ${run.error.split('\n', 1)[0]}`); },
  });
  let local: Awaited<ReturnType<typeof driveTasks>>;
  let remote: Awaited<ReturnType<typeof driveTasks>> | undefined;
  try {
    // Only the local run is journaled: the model-server comparison pairs two runs of one process.
    local = await drive(serverSettings(options), '', (result) => journal.append(result));
    if (options.modelServer) remote = await drive({ ...serverSettings(options), modelServer: options.modelServer }, 'model server: ');
  } finally {
    progress.stop();
  }
  const summary = summarize(local.results, arms.map(armName), options.types, { seed: options.seed, resamples: options.resamples });
  const origins = journalOrigins(finished);
  const timing = harnessTiming(local.results, local.repositories);
  const meta: ReportMeta = {
    command: options.command, startedAt: started.toISOString(), wallMs: Date.now() - started.getTime(),
    model: `${options.model ?? '(server default)'}${options.adapter ? ` + LoRA adapter ${options.adapter}` : ''}`, seed: options.seed,
    language: options.language ?? 'python', repositories: stats.map((s) => s.repository),
    machine: `${os.availableParallelism()} cores, load average ${loadAverage.toFixed(1)} at start`, typing: options.typing !== undefined,
    ...(origins.resumed > 0 ? { resumedResults: origins.resumed } : {}),
    ...(origins.reused > 0 ? { reusedResults: `${origins.reused} from ${origins.sources.join(', ')}` } : {}),
  };
  const files = await writeReport(options.outDir, {
    meta, policies: arms.map(armName), types: options.types, tasks, taskStats: stats,
    repositories: local.repositories, results: local.results, summary, timing,
  }, options.tracePrompts);
  if (remote) await writeModelServerComparison(files, options.modelServer!, local.results, remote.results);
  if (options.docsPath) await updateDocSection(options.docsPath, docsSection(meta, summary, timing, files));
  return { files, summary, timing };
}

/** `model-server.md` and `model-server-results.json` next to the local run's report. */
async function writeModelServerComparison(
  files: ReportFiles, url: string, local: readonly TaskResult[], remote: readonly TaskResult[],
): Promise<void> {
  const rows = compareLocalRemote(local, remote);
  await writeFile(path.join(files.dir, 'model-server.md'), agreementMarkdown(url, rows));
  await writeFile(path.join(files.dir, 'model-server-results.json'), `${JSON.stringify({ url, results: remote }, null, 1)}\n`);
}

/**
 * Every policy under each compared layout and budget set, layout-major: a layout change reloads
 * the model, so it happens once per layout and repository; budgets are a settings push.
 */
export function benchArms(options: Pick<BenchOptions, 'policies' | 'layouts' | 'budgetSets'>): Arm[] {
  const layouts = options.layouts?.length ? options.layouts : [undefined];
  const budgetSets = options.budgetSets?.length ? options.budgetSets : [undefined];
  return layouts.flatMap((layout) => budgetSets.flatMap((budgets) => options.policies.map((policy) => ({
    policy, ...(layout ? { layout } : {}), ...(budgets ? { budgets } : {}),
  }))));
}

/**
 * Copies into this run's journal (so a resume finds them too) the results another run measured
 * for arms of this one, and counts them; results this run already has are left as they are.
 */
function reuseResults(dir: string, run: RunIdentities, arms: readonly Arm[], journal: RunJournal, finished: Map<string, TaskResult>): number {
  let count = 0;
  for (const result of borrowResults(dir, run.identity, arms, run.legacyIdentity)) {
    const key = resultKey(result.policy, result.taskId);
    if (finished.has(key)) continue;
    journal.append(result);
    finished.set(key, result);
    count++;
  }
  return count;
}

/** A run's identity, and the one journals written before `served` existed recorded for it. */
interface RunIdentities {
  identity: RunIdentity;
  legacyIdentity: RunIdentity;
}

/**
 * What a resumed run must share with the journal it continues: everything but where reports go,
 * with the model and adapter named by the content the servers load (servedFiles.ts) rather than
 * by the flags, where local files serve.
 */
async function runIdentity(options: BenchOptions): Promise<RunIdentities> {
  const { outDir: _out, command: _command, docsPath: _docs, serverLog: _log, resume: _resume, reuseFrom: _reuse, resamples: _resamples, cacheDir: _cache, ...legacyIdentity } = options;
  const served = await servedFiles(serverSettings(options));
  if (!served) return { identity: legacyIdentity, legacyIdentity };
  const { model: _model, adapter: _adapter, ...rest } = legacyIdentity;
  return { identity: { ...rest, [SERVED_KEY]: served }, legacyIdentity };
}

/** initializationOptions for every server of the run. */
function serverSettings(options: BenchOptions): SettingsPatch {
  const settings: SettingsPatch = { tracePrompt: options.tracePrompts, ...modelSettingsFromArgument(options.model) };
  if (options.threads !== undefined) settings.threads = options.threads;
  if (options.maxTokens !== undefined) settings.maxTokens = options.maxTokens;
  if (options.budgets !== undefined) settings.budgets = options.budgets;
  if (options.layout !== undefined) settings.layout = options.layout;
  if (options.needThreshold !== undefined) settings.needThreshold = options.needThreshold;
  if (options.adapter) settings.adapterPath = options.adapter;
  if (options.kvShiftReuse !== undefined) settings.kvShiftReuse = options.kvShiftReuse;
  if (options.adaptiveThreads !== undefined) settings.adaptiveThreads = options.adaptiveThreads;
  if (options.sharedModelHost !== undefined) settings.sharedModelHost = options.sharedModelHost;
  if (options.keepCandidatesNearLines !== undefined) settings.keepCandidatesNearLines = options.keepCandidatesNearLines;
  return settings;
}

/**
 * Each package's source tree in its language (dist-packages, the Go import path, the crate, the
 * Node module) is one repository: the workspace root the server indexes. A package without one
 * is skipped and logged with the reason.
 */
export async function fetchRepositories(options: Pick<BenchOptions, 'packages' | 'cacheDir' | 'language'>, progress: ProgressReporter): Promise<Repository[]> {
  const language = BENCH_LANGUAGES[options.language ?? 'python'];
  const repositories: Repository[] = [];
  for (const name of options.packages) {
    const pkg = await language.fetch(name, options.cacheDir ? { cacheDir: options.cacheDir } : {});
    const found = await language.repositoryRoot(pkg);
    if (found.kind === 'skip') progress.log(`${name}: ${found.reason}, skipped`);
    else repositories.push({ name, root: found.root, language: language.id });
  }
  return repositories;
}

/** The packages fetched and the tasks built, as a run drives them. */
export async function fetchAndBuildTasks(
  options: Pick<BenchOptions, 'packages' | 'cacheDir' | 'language' | 'types' | 'limit' | 'seed' | 'perFileCap'>, progress: ProgressReporter,
): Promise<Awaited<ReturnType<typeof buildTasks>>> {
  return buildTasks(await fetchRepositories(options, progress), options);
}

/** The section of docs/bench-latest.md between the markers. */
function docsSection(meta: ReportMeta, summary: BenchSummary, timing: HarnessTiming, files: ReportFiles): string {
  const typing = typingTable(summary);
  const evidence = evidenceTable(summary);
  return [
    `Latest run: ${meta.startedAt}, model \`${path.basename(meta.model)}\`, ${meta.machine}, wall time ${Math.round(meta.wallMs / 1000)} s ` +
      `(report folder \`bench/reports/${path.basename(files.dir)}/\`, not committed).`,
    '', '```sh', meta.command, '```', '',
    qualityTable(summary), '', differenceTable(summary), '',
    ...(evidence ? [evidence, ''] : []),
    ...(typing ? [typing, ''] : []),
    timingTable(timing),
  ].join('\n');
}
