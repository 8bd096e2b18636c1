/**
 * The oracle table (RepoShapley Appendix C.2, Table 6) on the bench's tasks: how good could
 * completions be if the model selected chunks perfectly by each valuation? Per task, with the
 * bench model as the frozen generator, ChunkShapley runs as the labeler runs it (Δ, exact
 * Shapley values, the verified pool), and these coalitions are decoded:
 *   none               no retrieval (∅)
 *   full               every packed candidate (Full-Retrieve)
 *   Δ-oracle           the chunks with Δ_i > 0 (CODEFILTER's independent probing)
 *   Shapley φ > 0      the chunks with positive Shapley value, not verified
 *   Shapley-verified   the best decoded coalition of the pool, or ∅ when nothing beats it (S*)
 * Mean ES/EM per task type. Evaluation only: nothing here is written where training reads.
 *
 *   npm run build && node dist/bench/src/oracle.js [--model M.gguf] [--tasks line,api] [--limit 100] [--seed 1]
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import type { ModelSession } from '../../server/src/model/completionModel.js';
import { prepareTarget, type PromptSettings, type RepositoryTools } from '../../models/data/trainingSequences.js';
import { DEFAULT_CHUNKSHAPLEY_OPTIONS, runChunkShapley, verifyCoalition } from '../../models/labeling/chunkShapley.js';
import { bestCoalition } from '../../models/labeling/labels.js';
import { maskOf, popcount } from '../../models/labeling/shapley.js';
import { loadProbeModel, probeCommand, reportFolder, taskTarget, taskTypesOf, visitTasks, type ProbeOptions } from './modelProbes.js';
import { parsePackageList } from './debianPackages.js';
import { createQuietProgress } from './progress.js';
import { DEFAULT_PACKAGE_LIST } from './repoPaths.js';
import { fetchRepositories } from './runBench.js';
import { buildTasks } from './tasks/buildTasks.js';
import { oracleTable, type OracleRow } from './oracleTable.js';
import type { BenchTask } from './tasks/types.js';

interface Options extends ProbeOptions {
  packages?: string;
}

async function main(): Promise<void> {
  const options = probeCommand('oracle', 'oracle', { tasks: 'line,api', limit: 100 })
    .option('--packages <list>', 'benchmark packages (default: the bench list)')
    .parse()
    .opts<Options>();
  const types = taskTypesOf(options.tasks);
  const packages = options.packages?.split(',') ?? parsePackageList(readFileSync(DEFAULT_PACKAGE_LIST, 'utf8'));
  const probe = await loadProbeModel(options.model, options.threads, 'oracle', options.adapter);
  const repositories = await fetchRepositories({ packages }, createQuietProgress());
  const { tasks } = await buildTasks(repositories, { types, limit: options.limit, seed: options.seed, perFileCap: 3 });
  const rows: OracleRow[] = [];
  const started = Date.now();
  await visitTasks(probe, repositories, tasks, 'oracle', async (task, repo) => {
    const row = await oracleRow(task, repo, probe.prompt, probe.session);
    if (row) rows.push(row);
  });
  const outDir = reportFolder(options.out, 'oracle');
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, 'oracle.json'), JSON.stringify({ model: probe.path, options, rows }, null, 1));
  const markdown = [
    `Oracle table: ${rows.length} tasks (of ${tasks.length} drawn), model \`${probe.path}\`, ${((Date.now() - started) / 60_000).toFixed(1)} min.`,
    '', oracleTable(rows, types), '',
  ].join('\n');
  await writeFile(path.join(outDir, 'oracle.md'), markdown);
  process.stdout.write(markdown);
}

/** The five coalitions' scores on one task; undefined when the target is too long to generate. */
async function oracleRow(task: BenchTask, repo: RepositoryTools, prompt: PromptSettings, session: ModelSession): Promise<OracleRow | undefined> {
  const { fileText, target } = taskTarget(task);
  const prepared = await prepareTarget(repo, prompt, task.absPath, fileText, target);
  if (!prepared) return undefined;
  const input = { plan: prepared.plan, target: prepared.y, special: prompt.special, layout: prompt.layout };
  const generation = { maxTokens: DEFAULT_SETTINGS.maxTokens, singleLine: task.mode === 'line' };
  const result = await runChunkShapley(session, input, { ...DEFAULT_CHUNKSHAPLEY_OPTIONS, generation });
  const count = prepared.plan.packed.length;
  const decode = async (members: number[]) => {
    const verified = await verifyCoalition(session, input, maskOf(members), generation);
    return { es: verified.es, em: verified.em, kept: members.length };
  };
  const indexes = [...Array(count).keys()];
  // S*, or ∅ when no coalition beats it (∅ first: ties go to the earlier proposal).
  const best = bestCoalition([result.empty, ...result.pool])!;
  return {
    taskId: task.id, type: task.type, candidates: count,
    scores: {
      none: { es: result.empty.es, em: result.empty.em, kept: 0 },
      full: await decode(indexes),
      delta: await decode(indexes.filter((i) => result.deltas[i]! > 0)),
      shapley: await decode(indexes.filter((i) => result.phi[i]! > 0)),
      verified: { es: best.es, em: best.em, kept: popcount(best.mask) },
    },
  };
}

await main();
