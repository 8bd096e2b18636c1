/**
 * Model error or search error? Per bench task and context (no retrieval, and every packed
 * candidate as `full` sends them), the greedy completion G and the teacher-forced
 * log-likelihoods ℓ(Y) and ℓ(G) of the true completion and of G, each with the line's
 * newline for single-line tasks. ℓ(Y) > ℓ(G) is a search error: the model prefers Y to what
 * greedy decoding wrote, so a better search could find it. ℓ(Y) ≤ ℓ(G) is a model error: no
 * decoder gets Y from this model. The mean of ℓ(Y | full) − ℓ(Y | none) says how much the
 * evidence moves the model toward Y at all. Evaluation only: nothing here is written where
 * training reads.
 *
 *   npm run build && node dist/bench/src/searchErrors.js [--model M.gguf] [--tasks api] [--limit 300] [--seed 1]
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PromptPlan } from '../../server/src/prompt/sequences.js';
import { prepareTarget } from '../../models/data/trainingSequences.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { parsePackageList } from './debianPackages.js';
import { contextPromptIds, loadProbeModel, probeCommand, reportFolder, taskTarget, taskTypesOf, visitTasks, type ProbeOptions, type ProbeModel } from './modelProbes.js';
import { exactMatch } from './metrics/textMetrics.js';
import { createQuietProgress } from './progress.js';
import { DEFAULT_PACKAGE_LIST } from './repoPaths.js';
import { fetchRepositories } from './runBench.js';
import { buildTasks } from './tasks/buildTasks.js';
import { CONTEXTS, searchErrorTable, type ContextName, type Probe, type Row } from './searchErrorTable.js';
import type { BenchTask } from './tasks/types.js';

async function main(): Promise<void> {
  const options = probeCommand('searchErrors', 'search-errors', { tasks: 'api', limit: 300 })
    .description('greedy completion vs true completion likelihood, with and without retrieval, on bench tasks')
    .parse()
    .opts<ProbeOptions>();
  const types = taskTypesOf(options.tasks);
  const probe = await loadProbeModel(options.model, options.threads, 'searchErrors', options.adapter);
  const repositories = await fetchRepositories({ packages: parsePackageList(readFileSync(DEFAULT_PACKAGE_LIST, 'utf8')) }, createQuietProgress());
  const { tasks } = await buildTasks(repositories, { types, limit: options.limit, seed: options.seed, perFileCap: 3 });
  const rows: Row[] = [];
  await visitTasks(probe, repositories, tasks, 'search errors', async (task, repo) => {
    const { fileText, target } = taskTarget(task);
    const prepared = await prepareTarget(repo, probe.prompt, task.absPath, fileText, target);
    if (prepared) rows.push(await probeTask(task, prepared.plan, probe));
  });
  const outDir = reportFolder(options.out, 'search-errors');
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, 'search-errors.json'), JSON.stringify({ model: probe.path, options, rows }, null, 1));
  const adapter = options.adapter ? ` with the adapter \`${options.adapter}\`` : '';
  const markdown = `Search errors: ${rows.length} tasks, model \`${probe.path}\`${adapter}.\n\n${searchErrorTable(rows)}`;
  await writeFile(path.join(outDir, 'search-errors.md'), markdown);
  process.stdout.write(markdown);
}

async function probeTask(task: BenchTask, plan: PromptPlan, { model, session, prompt }: ProbeModel): Promise<Row> {
  const singleLine = task.mode === 'line';
  // A single-line completion ends where the model writes the newline; score that choice too.
  const ending = singleLine ? '\n' : '';
  const probes = {} as Record<ContextName, Probe>;
  for (const context of CONTEXTS) {
    const ids = contextPromptIds(prompt, plan, context);
    const greedy = await session.generate(ids, { maxTokens: DEFAULT_SETTINGS.maxTokens, singleLine });
    probes[context] = {
      completion: greedy.text,
      em: exactMatch(greedy.text, task.target),
      likelihoodTarget: await session.logLikelihood(ids, model.tokenize(task.target + ending)),
      likelihoodGreedy: await session.logLikelihood(ids, model.tokenize(greedy.text + ending)),
    };
  }
  return { taskId: task.id, type: task.type, target: task.target, probes };
}

await main();
