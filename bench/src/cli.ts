/**
 * `npm run bench -- --model PATH --policies none,full,reposhapley --tasks line,api,block
 *   --limit N --seed S [--language go] [--packages a,b] [--typing] [--threads T] [--list-tasks]`
 *
 * Flags -> BenchOptions -> runBench. The report folder's path goes to stdout, progress to stderr.
 * `--list-tasks` stops after building the tasks and prints them instead (no server, no model).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { LANGUAGE_IDS, type LanguageId } from '../../shared/languages.js';
import { LAYOUT_PREFERENCES, POLICY_NAMES, type LayoutPreference, type PolicyName, type PromptBudgets } from '../../shared/settings.js';
import { BENCH_LANGUAGES, expandPackageNames, whyNoPackages, type BenchLanguageId } from './benchLanguages.js';
import { modelArgument, userPath } from './cliModel.js';
import { listOf, nonNegativeInt, positiveInt, promptBudgets } from './cliNumbers.js';
import { parsePackageList } from './debianPackages.js';
import { ModelUnavailableError } from './driver/driveTasks.js';
import { JournalError } from './driver/journal.js';
import { DEFAULT_TYPING } from './driver/typingReplay.js';
import { createProgressBar, createQuietProgress } from './progress.js';
import { PACKAGE_LISTS_DIR, REPO_ROOT, REPORTS_DIR } from './repoPaths.js';
import { timestampFolder } from './report/writeReport.js';
import { fetchAndBuildTasks, runBench, type BenchOptions } from './runBench.js';
import { taskListing } from './taskListing.js';
import { TASK_TYPES, type TaskType } from './tasks/types.js';

function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError(`expected a number from 0 to 1, got ${value}`);
  return n;
}

/** `30-120` -> [30, 120]. */
function gapRange(value: string): [number, number] {
  const match = /^(\d+)-(\d+)$/.exec(value);
  if (!match || Number(match[1]) > Number(match[2])) throw new InvalidArgumentError(`expected MIN-MAX milliseconds, got ${value}`);
  return [Number(match[1]), Number(match[2])];
}

/** Names from --packages (`requests` is short for `python3-requests`, `cobra` for its Go package), else the list file. */
function packageNames(requested: string[] | undefined, listFile: string, language: BenchLanguageId): string[] {
  const listed = parsePackageList(readFileSync(listFile, 'utf8'));
  return requested ? expandPackageNames(requested, listed, BENCH_LANGUAGES[language]) : listed;
}

function program(): Command {
  return new Command('bench')
    .description('RepoEval-style completion benchmark over the built server (stdio), per policy')
    .option('--model <path|name>', 'GGUF model or catalog name (default: the server\'s choice: REPOSHAPLEY_MODEL, then the pulled catalog model, then the bundled one)', modelArgument)
    .option('--adapter <file>', 'a LoRA adapter GGUF on the model (the adapterPath setting; models/train/lora_gguf.py)')
    .option('--model-server <url>', 'also run every task through this llama-server and compare (report: model-server.md)')
    .addOption(new Option('--policies <list>', 'policies to compare').argParser(listOf(POLICY_NAMES, 'policies'))
      .default(['none', 'full', 'reposhapley'] as PolicyName[], 'none,full,reposhapley'))
    .addOption(new Option('--tasks <list>', 'task types').argParser(listOf(TASK_TYPES, 'tasks')).default([...TASK_TYPES], TASK_TYPES.join(',')))
    .option('--limit <n>', 'tasks in total (split over types, then packages)', positiveInt, 300)
    .option('--seed <n>', 'seed of task sampling, bootstrap and typing gaps', nonNegativeInt, 1)
    .addOption(new Option('--language <id>', 'language of the packages and of the files tasks come from').choices(LANGUAGE_IDS).default('python'))
    .option('--packages <list>', 'Debian packages (default: all of the package list)', (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .option('--package-list <file>', 'package list file (default: ../shared/bench/packages.txt for Python, packages-<language>.txt for the others)')
    .option('--list-tasks', 'fetch the packages and build the tasks, print them and the counts per repository, and stop (no server, no model)')
    .option('--per-file-cap <n>', 'most tasks of one type from one file', positiveInt, 3)
    .option('--typing', 'replay typing keystroke by keystroke (debounced, as users type)')
    .option('--no-rest', 'in --typing mode, type at once instead of waiting for the first ghost text at the cursor')
    .option('--pause-ms <n>', 'in --typing mode, arrive as VS Code does: no request at the cursor; the cursor reported at rest, the first key N ms after the jump, its ghost text the arrival', nonNegativeInt)
    .addOption(new Option('--jump', 'in --typing mode, arrive by a jump within the file: a request in the neighbouring function answered first, then the one at the cursor (the arrival)').conflicts('pauseMs'))
    .option('--keys <n>', 'keystrokes per task in --typing mode (at most half the target)', positiveInt, DEFAULT_TYPING.maxKeystrokes)
    .addOption(new Option('--gap-ms <min-max>', 'gap between keystrokes in --typing mode').argParser(gapRange)
      .default([DEFAULT_TYPING.gapMinMs, DEFAULT_TYPING.gapMaxMs], `${DEFAULT_TYPING.gapMinMs}-${DEFAULT_TYPING.gapMaxMs}`))
    .option('--threads <n>', 'model CPU threads (default: the server\'s)', nonNegativeInt)
    .option('--max-tokens <n>', 'tokens generated per completion (default: the server\'s)', positiveInt)
    .addOption(new Option('--layout <layout>', 'prompt layout (default: the server\'s, auto)').choices(LAYOUT_PREFERENCES).conflicts('layouts'))
    .addOption(new Option('--layouts <list>', 'compare prompt layouts in one run: every policy under each (arms policy@layout)')
      .argParser(listOf(LAYOUT_PREFERENCES, 'layouts')))
    .addOption(new Option('--budgets <p,s,c...>', 'prefix, suffix and chunk token budgets (default: the server\'s); several sets compare them in one run (arms policy@p-s-c)')
      .argParser((value: string, previous: PromptBudgets[] | undefined) => [...(previous ?? []), promptBudgets(value)]))
    .option('--need-threshold <t>', 't_c of the reposhapley policy, 0..1 (0 = always NEED: the no-trigger ablation; default: the model\'s)', unitInterval)
    .option('--keep-candidates-near <n>', 'the keepCandidatesNearLines setting: keep the candidates across a move of at most N lines', nonNegativeInt)
    .option('--no-kv-shift-reuse', 'keep only the common prefix of cached prompts (the kvShiftReuse setting off)')
    .option('--no-adaptive-threads', 'keep the model on --threads threads whatever else runs (the adaptiveThreads setting off)')
    .option('--no-shared-model-host', 'a model process per server, as with sharedModelHost off (default: the server\'s: one shared by every server of this user)')
    .option('--timeout-ms <n>', 'longest wait for one completion', positiveInt, 120_000)
    .option('--resamples <n>', 'bootstrap resamples', positiveInt, 2_000)
    .option('--out <dir>', 'report folder (default: bench/reports/<timestamp>); results are journaled there as they come')
    .option('--resume', 'continue the interrupted run journaled in --out (same flags): only the task runs it lacks are driven')
    .option('--reuse <dir>', 'copy from the run journaled in DIR the results of the policies both runs have (it must differ only in its policies, or in t_c: then only none and full), instead of measuring them again')
    .option('--trace-prompts', 'ask for rendered prompts and keep them in results.json')
    .option('--server-log <file>', 'append every server\'s log to this file (debug level unless REPOSHAPLEY_LOG is set)')
    .option('--update-docs', 'write the tables into docs/bench-latest.md')
    .option('--no-progress', 'no progress bar');
}

interface Flags {
  model?: string; adapter?: string; modelServer?: string; policies: PolicyName[]; tasks: TaskType[]; limit: number; seed: number; packages?: string[];
  language: LanguageId; packageList?: string; listTasks?: boolean; perFileCap: number; typing?: boolean; rest: boolean; pauseMs?: number; jump?: boolean; keys: number; gapMs: [number, number]; threads?: number;
  maxTokens?: number; budgets?: PromptBudgets[]; layout?: LayoutPreference; layouts?: LayoutPreference[]; needThreshold?: number; kvShiftReuse: boolean; adaptiveThreads: boolean; sharedModelHost: boolean; keepCandidatesNear?: number; timeoutMs: number; resamples: number; out?: string; tracePrompts?: boolean; serverLog?: string; updateDocs?: boolean; progress: boolean; resume?: boolean; reuse?: string;
}

/** Flags -> options; `language` is one with a package list (main refuses the others). */
function toOptions(flags: Flags, language: BenchLanguageId, argv: readonly string[], now = new Date()): BenchOptions {
  const listFile = flags.packageList ? userPath(flags.packageList) : path.join(PACKAGE_LISTS_DIR, BENCH_LANGUAGES[language].packageList);
  const options: BenchOptions = {
    policies: flags.policies, types: flags.tasks, limit: flags.limit, seed: flags.seed,
    packages: packageNames(flags.packages, listFile, language), perFileCap: flags.perFileCap,
    requestTimeoutMs: flags.timeoutMs, resamples: flags.resamples,
    outDir: flags.out ? userPath(flags.out) : path.join(REPORTS_DIR, timestampFolder(now)),
    tracePrompts: flags.tracePrompts === true,
    command: ['npm run bench --', ...argv].join(' '),
  };
  if (language !== 'python') options.language = language;
  if (flags.model) options.model = flags.model; // a file's absolute path or a catalog name (modelArgument)
  if (flags.adapter) options.adapter = userPath(flags.adapter);
  if (flags.modelServer) options.modelServer = flags.modelServer;
  if (flags.threads !== undefined) options.threads = flags.threads;
  if (flags.maxTokens !== undefined) options.maxTokens = flags.maxTokens;
  if (flags.budgets?.length === 1) options.budgets = flags.budgets[0];
  else if (flags.budgets) options.budgetSets = [...new Map(flags.budgets.map((b) => [JSON.stringify(b), b])).values()];
  if (flags.layout !== undefined) options.layout = flags.layout;
  if (flags.layouts !== undefined) options.layouts = flags.layouts;
  if (flags.needThreshold !== undefined) options.needThreshold = flags.needThreshold;
  if (!flags.kvShiftReuse) options.kvShiftReuse = false;
  if (!flags.adaptiveThreads) options.adaptiveThreads = false;
  if (!flags.sharedModelHost) options.sharedModelHost = false;
  if (flags.keepCandidatesNear !== undefined) options.keepCandidatesNearLines = flags.keepCandidatesNear;
  if (flags.serverLog) options.serverLog = userPath(flags.serverLog);
  if (flags.resume) options.resume = true;
  if (flags.reuse) options.reuseFrom = userPath(flags.reuse);
  if (flags.updateDocs) options.docsPath = path.join(REPO_ROOT, 'docs', 'bench-latest.md');
  if (flags.typing) {
    options.typing = { maxKeystrokes: flags.keys, gapMinMs: flags.gapMs[0], gapMaxMs: flags.gapMs[1], seed: flags.seed, rest: flags.rest };
    if (flags.pauseMs !== undefined) options.typing.pauseMs = flags.pauseMs;
    if (flags.jump) options.typing.jump = true;
  }
  return options;
}


async function main(argv: string[]): Promise<void> {
  const command = program().parse(argv, { from: 'user' });
  const flags = command.opts<Flags>();
  if (flags.resume && !flags.out) command.error('error: --resume needs --out DIR, the report folder of the run to continue');
  const refusal = whyNoPackages(flags.language);
  if (refusal) command.error(`error: ${refusal}`);
  const options = toOptions(flags, flags.language as BenchLanguageId, argv);
  const progress = flags.progress ? createProgressBar() : createQuietProgress();
  if (flags.listTasks) {
    const { tasks, stats } = await fetchAndBuildTasks(options, progress);
    process.stdout.write(taskListing(tasks, stats, options.types));
    return;
  }
  try {
    const { files } = await runBench(options, progress);
    process.stdout.write(`${files.markdown}\n`);
    if (options.modelServer) process.stdout.write(`${path.join(files.dir, 'model-server.md')}\n`);
  } catch (error) {
    progress.stop();
    if (error instanceof ModelUnavailableError) {
      process.stderr.write(`bench: no usable model: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof JournalError) {
      process.stderr.write(`bench: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

await main(process.argv.slice(2));
