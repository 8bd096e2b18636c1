/**
 * What the bench's offline probes (oracle.ts, searchErrors.ts, firstTokenSearch.ts) share: their
 * common options, the model as the frozen generator with one session and the server's prompt
 * settings, and a walk over the bench tasks repository by repository, each with its index and
 * retriever open, under a progress bar.
 */
import path from 'node:path';
import { Command } from 'commander';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { findBundledModel } from '../../server/src/completion/modelChoice.js';
import type { CompletionModel, ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { chooseLayout, layoutByName } from '../../server/src/prompt/layouts.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import type { PromptPlan } from '../../server/src/prompt/sequences.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { openRepository } from '../../models/data/repositoryTools.js';
import type { Target } from '../../models/data/targets.js';
import type { PromptSettings, RepositoryTools } from '../../models/data/trainingSequences.js';
import { positiveInt } from './cliNumbers.js';
import { createProgressBar } from './progress.js';
import { REPORTS_DIR } from './repoPaths.js';
import type { ContextName } from './searchErrorTable.js';
import { TASK_TYPES, type BenchTask, type TaskType } from './tasks/types.js';

/** The options every probe takes. */
export interface ProbeOptions {
  model?: string;
  adapter?: string;
  tasks: string;
  limit: number;
  seed: number;
  threads: number;
  out?: string;
}

/**
 * A probe's command line with the options all probes take (the model and its adapter, which bench
 * tasks, the model's threads, the report folder); each probe adds its own before parsing.
 * `reportName` names the default report folder, bench/reports/<reportName>-<time>.
 */
export function probeCommand(name: string, reportName: string, defaults: { tasks: string; limit: number }): Command {
  return new Command(name)
    .option('--model <gguf>', 'the model, a frozen generator (default: the bundled model)')
    .option('--adapter <gguf>', 'LoRA adapter to load with the model (the control pack\'s: models/control/NAME/adapter.gguf)')
    .option('--tasks <list>', 'task types', defaults.tasks)
    .option('--limit <n>', 'tasks in total', positiveInt, defaults.limit)
    .option('--seed <n>', 'task sampling seed (as the bench)', (v) => Number(v), 1)
    .option('--threads <n>', 'model threads', positiveInt, 1)
    .option('--out <dir>', `report folder (default: bench/reports/${reportName}-<time>)`);
}

/** The task types a `--tasks` list names, or an error that lists the valid ones. */
export function taskTypesOf(list: string): TaskType[] {
  const types = list.split(',') as TaskType[];
  if (types.some((t) => !TASK_TYPES.includes(t))) throw new Error(`--tasks must be among ${TASK_TYPES.join(',')}`);
  return types;
}

/** `--out`, else a new folder under bench/reports named for the probe and the time. */
export function reportFolder(out: string | undefined, reportName: string): string {
  return out ?? path.join(REPORTS_DIR, `${reportName}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
}

export interface ProbeModel {
  path: string;
  model: CompletionModel;
  session: ModelSession;
  tokenizer: LineTokenizer;
  prompt: PromptSettings;
}

/**
 * Load `modelPath` (default: the bundled model) on CPU threads, with a LoRA adapter where one is
 * given (the control pack's, as the server loads it by default), or fail with the fix.
 */
export async function loadProbeModel(modelPath: string | undefined, threads: number, name: string, adapterPath?: string): Promise<ProbeModel> {
  const path = modelPath ?? findBundledModel();
  if (!path) throw new Error('no model: pass --model PATH');
  const loaded = await loadLlamaModel({ path, threads, gpuLayers: 'auto', adapterPath }, createStreamLogger(name, 'warn'));
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const model = loaded.model;
  return {
    path, model, session: await model.createSession(), tokenizer: new LineTokenizer(model),
    // The model's own layout, as the server chooses it: repo-fim for Qwen2.5-Coder, RepoShapley's for the small model.
    prompt: { contextSize: model.info.contextSize, settings: DEFAULT_SETTINGS, special: model.info.special, echoLines: model.info.echoLines, layout: chooseLayout(model.info) },
  };
}

/** Visit every task with its repository's tools open; disposes the model at the end. */
export async function visitTasks(
  probe: ProbeModel, repositories: ReadonlyArray<{ name: string; root: string }>, tasks: readonly BenchTask[], label: string,
  visit: (task: BenchTask, repo: RepositoryTools) => Promise<void>,
): Promise<void> {
  // The bench's bar: outside a terminal (a run in the background) it prints a status line every 10 s.
  const progress = createProgressBar();
  progress.start(tasks.length, label);
  try {
    for (const repository of repositories) {
      const repo = await openRepository(repository.root, DEFAULT_SETTINGS, probe.tokenizer);
      try {
        for (const task of tasks.filter((t) => t.repository === repository.name)) {
          await visit(task, repo);
          progress.tick(`${label}: ${repository.name}`);
        }
      } finally {
        repo.dispose();
      }
    }
  } finally {
    progress.stop();
    await probe.model.dispose();
  }
}

/** A bench task as the data builder's target in its file (prefix + target + suffix). */
export function taskTarget(task: BenchTask): { fileText: string; target: Target } {
  return {
    fileText: task.prefix + task.target + task.suffix,
    target: {
      kind: task.type, relPath: task.relPath, line: task.cursor.line, character: task.cursor.character,
      start: task.prefix.length, end: task.prefix.length + task.target.length, text: task.target,
    },
  };
}

/** The generation prompt's tokens in one context: no retrieval, or every packed candidate as `full` sends them. */
export function contextPromptIds(prompt: PromptSettings, plan: PromptPlan, context: ContextName): number[] {
  const layout = prompt.layout ?? layoutByName('reposhapley');
  const segments = context === 'none' ? layout.generation({ ...plan, packed: [] }, []) : layout.generation(plan, [...plan.packed.keys()]);
  return toTokenIds(segments, prompt.special);
}
