/**
 * Would a wider search than greedy decoding find better lines? Per task and context (no
 * retrieval, and every packed candidate as `full` sends them): the greedy completion, then one
 * greedy continuation after each of the K most probable first tokens, each scored by its
 * teacher-forced ℓ (with the line's newline for single-line tasks, as searchErrors scores). The
 * table compares exact match of greedy against the candidate of highest ℓ (the most likely line
 * the search saw) and of highest mean ℓ per token, and counts tasks where any candidate matches
 * (what a perfect chooser among them would reach). Evaluation only; run it on the validation
 * packages before any bench run, so nothing is chosen on the bench's tasks. On the 0.5B the most
 * likely candidate lost exact matches (docs/history/2026-12-05-bench-misses-first-token.md, "First-token search"), so the server
 * decodes greedily.
 *
 *   npm run build && node dist/bench/src/firstTokenSearch.js --packages python3-dulwich,… [--branches 4] [--tasks line,api] [--limit 120]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PromptPlan } from '../../server/src/prompt/sequences.js';
import type { GenerationOptions } from '../../server/src/model/completionModel.js';
import { LlamaSession } from '../../server/src/model/llama/llamaSession.js';
import { findTextStop } from '../../server/src/model/llama/stopRules.js';
import { prepareTarget } from '../../models/data/trainingSequences.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { positiveInt } from './cliNumbers.js';
import { contextPromptIds, loadProbeModel, probeCommand, reportFolder, taskTarget, taskTypesOf, visitTasks, type ProbeOptions, type ProbeModel } from './modelProbes.js';
import { exactMatch } from './metrics/textMetrics.js';
import { markdownTable } from './report/format.js';
import { createQuietProgress } from './progress.js';
import { fetchRepositories } from './runBench.js';
import { buildTasks } from './tasks/buildTasks.js';
import { CONTEXTS, type ContextName } from './searchErrorTable.js';
import { TASK_TYPES, type BenchTask, type TaskType } from './tasks/types.js';

interface Options extends ProbeOptions {
  packages: string;
  branches: number;
}

interface Candidate {
  text: string;
  /** Teacher-forced ℓ of the text (and the newline, for a single line) and its token count. */
  likelihood: number;
  tokens: number;
}

interface Probe {
  greedy: string;
  /** ln P of the K first tokens branched on, most probable first (how sure the model was). */
  firstTokens: number[];
  candidates: Candidate[];
}

interface Row {
  taskId: string;
  type: TaskType;
  target: string;
  probes: Record<ContextName, Probe>;
}

async function main(): Promise<void> {
  const options = probeCommand('firstTokenSearch', 'first-token-search', { tasks: 'line,api', limit: 120 })
    .description('greedy against the most likely of K first-token branches, with and without retrieval')
    .requiredOption('--packages <list>', 'Debian packages to draw tasks from (the validation packages, never the bench\'s)')
    .option('--branches <k>', 'first tokens to branch on', positiveInt, 4)
    .parse()
    .opts<Options>();
  const types = taskTypesOf(options.tasks);
  const probe = await loadProbeModel(options.model, options.threads, 'firstTokenSearch', options.adapter);
  if (!(probe.session instanceof LlamaSession)) throw new Error('firstTokenSearch needs a local GGUF model (it reads next-token distributions)');
  const packages = options.packages.split(',').map((name) => name.trim()).filter(Boolean);
  const repositories = await fetchRepositories({ packages }, createQuietProgress());
  const { tasks } = await buildTasks(repositories, { types, limit: options.limit, seed: options.seed, perFileCap: 3 });
  const rows: Row[] = [];
  await visitTasks(probe, repositories, tasks, 'first-token search', async (task, repo) => {
    const { fileText, target } = taskTarget(task);
    const prepared = await prepareTarget(repo, probe.prompt, task.absPath, fileText, target);
    if (prepared) rows.push(await probeTask(task, prepared.plan, probe, options.branches));
  });
  const outDir = reportFolder(options.out, 'first-token-search');
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, 'first-token-search.json'), JSON.stringify({ model: probe.path, options, rows }, null, 1));
  const markdown = `First-token search: ${rows.length} tasks, ${options.branches} branches, model \`${probe.path}\`.\n\n${searchTable(rows)}\n`;
  await writeFile(path.join(outDir, 'first-token-search.md'), markdown);
  process.stdout.write(markdown);
}

async function probeTask(task: BenchTask, plan: PromptPlan, probe: ProbeModel, branches: number): Promise<Row> {
  const session = probe.session as LlamaSession;
  const generation: GenerationOptions = { maxTokens: DEFAULT_SETTINGS.maxTokens, singleLine: task.mode === 'line' };
  const ending = generation.singleLine ? '\n' : '';
  const probes = {} as Record<ContextName, Probe>;
  for (const context of CONTEXTS) {
    const ids = contextPromptIds(probe.prompt, plan, context);
    const greedy = (await session.generate(ids, generation)).text;
    const texts = new Set([greedy]);
    const firstTokens = await session.topNextTokens(ids, branches);
    for (const { token } of firstTokens) {
      const rest = await session.generate([...ids, token], generation);
      const text = probe.model.detokenize([token]) + rest.text;
      const stop = findTextStop(text, generation);
      texts.add(stop ? text.slice(0, stop.index) : text);
    }
    const candidates: Candidate[] = [];
    for (const text of texts) {
      const target = probe.model.tokenize(text + ending);
      candidates.push({ text, likelihood: await session.logLikelihood(ids, target), tokens: target.length });
    }
    probes[context] = { greedy, firstTokens: firstTokens.map((t) => t.logProbability), candidates };
  }
  return { taskId: task.id, type: task.type, target: task.target, probes };
}

/** The candidate a chooser picks: highest total ℓ, or highest mean ℓ per token. */
function chosen(probe: Probe, score: (c: Candidate) => number): string {
  return probe.candidates.reduce((best, c) => (score(c) > score(best) ? c : best)).text;
}

function searchTable(rows: readonly Row[]): string {
  const header = ['type', 'context', 'tasks', 'EM greedy', 'EM max ℓ', 'max ℓ: won / lost', 'EM max mean ℓ', 'any candidate EM'];
  const body: string[][] = [];
  for (const type of TASK_TYPES) {
    const ofType = rows.filter((r) => r.type === type);
    if (ofType.length === 0) continue;
    for (const context of CONTEXTS) {
      const em = (pick: (p: Probe) => string) => ofType.map((r) => exactMatch(pick(r.probes[context]), r.target));
      const greedy = em((p) => p.greedy);
      const total = em((p) => chosen(p, (c) => c.likelihood));
      const mean = em((p) => chosen(p, (c) => c.likelihood / c.tokens));
      const any = ofType.filter((r) => r.probes[context].candidates.some((c) => exactMatch(c.text, r.target))).length;
      const won = total.filter((hit, i) => hit && !greedy[i]).length;
      const lost = total.filter((hit, i) => !hit && greedy[i]).length;
      body.push([type, context, String(ofType.length), count(greedy), count(total), `${won} / ${lost}`, count(mean), String(any)]);
    }
  }
  return markdownTable(header, body);
}

function count(hits: readonly boolean[]): string {
  return String(hits.filter(Boolean).length);
}

await main();
