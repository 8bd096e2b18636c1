/**
 * What the bench's offline probes (oracle.ts, searchErrors.ts) share: the model as the frozen
 * generator with one session and the server's prompt settings, and a walk over the bench tasks
 * repository by repository, each with its index and retriever open, under a progress bar.
 */
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { findBundledModel } from '../../server/src/completion/modelChoice.js';
import type { CompletionModel, ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { chooseLayout } from '../../server/src/prompt/layouts.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { openRepository } from '../../models/data/repositoryTools.js';
import type { Target } from '../../models/data/targets.js';
import type { PromptSettings, RepositoryTools } from '../../models/data/trainingSequences.js';
import { createProgressBar } from './progress.js';
import type { BenchTask } from './tasks/types.js';

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
