/**
 * The labels' single-chunk probes redone with another generator: ℓ(∅) and ℓ({i}), so Δ_i, on the
 * very instances labeled, rebuilt as they were (rebuildInstance: the same file, cursor, candidates
 * and packing, so the other generator must share the labeling model's tokenizer, as the Qwen2.5-Coder
 * sizes do, or every instance is stale). Probes only, no verification: a few forward passes per
 * instance instead of the labeler's dozen, which makes the question affordable on two cores that a
 * full relabeling is not: would a stronger G value the callee's definition more? The report pairs
 * the two generators' Δ on the same API instances, by labelEvidence's rule (covering candidates
 * against the others), and counts how often their Δ signs agree.
 *
 *   node dist/models/labeling/reprobe.js --model qwen2.5-coder-1.5b --retrieval need --out FILE   # resumable
 *   node dist/models/labeling/reprobe.js --report FILE
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, Option } from 'commander';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { average, pairedBootstrap, type Interval } from '../../bench/src/metrics/bootstrap.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import type { CompletionModel, ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { widenedModel } from '../../server/src/modelStore/widenedModel.js';
import { layoutByName } from '../../server/src/prompt/layouts.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir } from '../corpus/corpusReader.js';
import { openRepository } from '../data/repositoryTools.js';
import { normalizedLikelihood, singleChunkLikelihoods } from './chunkShapley.js';
import { definitionPairs, resolveRecord } from './labelEvidence.js';
import type { LabelRecord } from './labelRecord.js';
import { defaultLabelFolders, readLabelsByRepository, rebuildInstance } from './rebuildInstance.js';

/** One instance probed by the other generator, with what labelEvidence needs to pair it. */
export interface ReprobeRecord {
  id: string;
  /** The other generator's GGUF file name. */
  model: string;
  likelihoodEmpty: number;
  deltas: number[];
  /** The labeling G's Δ, copied from the record. */
  labelDeltas: number[];
  /** Per candidate, whether it covers the callee's definition (labelEvidence). */
  covering: boolean[];
  ms: number;
}

type RetrievalFilter = 'need' | 'labeled' | 'all';

/** The API records whose call resolves to a definition that some candidate covers, in the chosen label group. */
function wanted(record: LabelRecord, retrieval: RetrievalFilter): boolean {
  if (record.kind !== 'api') return false;
  return retrieval === 'all' || (retrieval === 'need' ? record.retrieval === 'need' : record.retrieval !== undefined);
}

/** Probes each wanted record with `session`, appending to `out`; ids already there are skipped. */
async function probeAll(model: CompletionModel, modelName: string, session: ModelSession, options: ProbeOptions): Promise<void> {
  const done = new Set((await readReprobes(options.out)).map((r) => r.id));
  const corpus = await Corpus.open(options.manifest, options.corpus);
  let probed = 0;
  for (const [repository, records] of await readLabelsByRepository(options.labels.split(','))) {
    const pending = records.filter((r) => wanted(r, options.retrieval) && !done.has(r.id));
    if (pending.length === 0) continue;
    const repo = await openRepository(path.join(corpus.dir, repository), DEFAULT_SETTINGS, new LineTokenizer(model));
    try {
      for (const record of pending) {
        if (probed >= options.limit) return;
        const reprobe = await probeRecord(record, repo, model, modelName, session);
        if (typeof reprobe === 'string') {
          process.stderr.write(`${record.id}: ${reprobe}\n`);
          continue;
        }
        await appendFile(options.out, `${JSON.stringify(reprobe)}\n`);
        probed++;
        process.stderr.write(`${record.id}: ${reprobe.deltas.length} candidates, ${(reprobe.ms / 1000).toFixed(1)} s\n`);
      }
    } finally {
      repo.dispose();
    }
  }
}

async function probeRecord(
  record: LabelRecord, repo: Awaited<ReturnType<typeof openRepository>>, model: CompletionModel, modelName: string, session: ModelSession,
): Promise<ReprobeRecord | string> {
  const { covering } = resolveRecord(record, repo.index, repo.parser);
  if (!covering?.some(Boolean)) return 'no candidate covers a cross-file definition: skipped';
  const generator = record.generator;
  if (!generator) return 'no generator recorded: skipped';
  const layout = layoutByName(generator.layout, model.info.echoLines);
  const prepared = await rebuildInstance(record, repo, {
    contextSize: model.info.contextSize, special: model.info.special, echoLines: model.info.echoLines, layout,
    settings: { ...DEFAULT_SETTINGS, budgets: generator.budgets },
  });
  if (!prepared) return 'stale (the file, the target or the packed candidates differ): skipped';
  const started = performance.now();
  const input = { plan: prepared.plan, target: prepared.y, special: model.info.special, layout };
  const likelihoodEmpty = await normalizedLikelihood(session, input, undefined);
  const deltas = (await singleChunkLikelihoods(session, input)).map((likelihood) => likelihood - likelihoodEmpty);
  return {
    id: record.id, model: modelName, likelihoodEmpty, deltas, labelDeltas: record.deltas, covering, ms: performance.now() - started,
  };
}

export async function readReprobes(file: string): Promise<ReprobeRecord[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  // A stopped run can leave a torn last line; it is probed again.
  return text.split('\n').flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line) as ReprobeRecord] : [];
    } catch {
      return [];
    }
  });
}

export interface ReprobeComparison {
  instances: number;
  pooled: { label: number; other: number; pairs: number };
  /** Mean per-instance AUC of the other G minus the labeling G's, paired over instances. */
  perInstance: { label: number; other: number; difference: Interval };
  /** Candidates whose Δ has the same sign under both generators. */
  signAgreement: { same: number; candidates: number };
}

/** The two generators' Δ ranking of the covering candidates, paired over the same instances. */
export function compareReprobes(reprobes: readonly ReprobeRecord[]): ReprobeComparison {
  const ranked = reprobes
    .map((r) => ({ label: definitionPairs(r.labelDeltas, r.covering), other: definitionPairs(r.deltas, r.covering) }))
    .filter((r) => r.label.pairs > 0);
  const sum = (key: 'label' | 'other', field: 'wins' | 'pairs') => ranked.reduce((total, r) => total + r[key][field], 0);
  const perLabel = ranked.map((r) => r.label.wins / r.label.pairs);
  const perOther = ranked.map((r) => r.other.wins / r.other.pairs);
  let same = 0;
  let candidates = 0;
  for (const r of reprobes) {
    r.deltas.forEach((delta, i) => {
      candidates++;
      if (delta > 0 === r.labelDeltas[i]! > 0) same++;
    });
  }
  return {
    instances: ranked.length,
    pooled: { label: sum('label', 'wins') / sum('label', 'pairs'), other: sum('other', 'wins') / sum('other', 'pairs'), pairs: sum('label', 'pairs') },
    perInstance: { label: average(perLabel), other: average(perOther), difference: pairedBootstrap(perOther, perLabel) },
    signAgreement: { same, candidates },
  };
}

export function reprobeReport(reprobes: readonly ReprobeRecord[]): string {
  const c = compareReprobes(reprobes);
  const f = (x: number) => x.toFixed(3);
  const models = [...new Set(reprobes.map((r) => r.model))].join(', ');
  const seconds = average(reprobes.map((r) => r.ms / 1000));
  return [
    `${c.instances} API instances probed again with ${models} (mean ${seconds.toFixed(1)} s each), paired with the labeling generator's Δ:`, '',
    '| Δ ranks the definition above the other candidates | labeling G | other G |', '|---|---|---|',
    `| pooled AUC (${c.pooled.pairs} pairs) | ${f(c.pooled.label)} | ${f(c.pooled.other)} |`,
    `| mean per-instance AUC | ${f(c.perInstance.label)} | ${f(c.perInstance.other)} |`, '',
    `other − labeling, per instance: ${f(c.perInstance.difference.mean)} [${f(c.perInstance.difference.low)}, ${f(c.perInstance.difference.high)}] (paired bootstrap, 95 %).`,
    `Δ signs agree on ${c.signAgreement.same} of ${c.signAgreement.candidates} candidates.`,
  ].join('\n');
}

interface ProbeOptions {
  model?: string;
  report?: string;
  out: string;
  labels: string;
  manifest: string;
  corpus: string;
  retrieval: RetrievalFilter;
  limit: number;
  threads: number;
}

async function main(): Promise<void> {
  const options = new Command()
    .description("Redo the labels' single-chunk probes with another generator and compare how each ranks the callee's definition.")
    .option('--model <gguf>', 'the other generator: a GGUF path or a catalog name')
    .option('--report <file>', 'only report on a reprobe file')
    .option('--out <file>', 'reprobe file (JSON lines, resumable)', path.join(defaultCacheDir(), 'reprobe.jsonl'))
    .option('--labels <dirs>', 'label folders, comma-separated',
      defaultLabelFolders())
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .addOption(new Option('--retrieval <group>', 'which API records: NEED, NEED or DONE, or all').choices(['need', 'labeled', 'all']).default('need'))
    .option('--limit <n>', 'stop after n instances this run', (v) => Number(v), Number.POSITIVE_INFINITY)
    .option('--threads <n>', 'model threads', (v) => Number(v), 2)
    .parse()
    .opts<ProbeOptions>();
  if (options.report) {
    console.log(reprobeReport(await readReprobes(options.report)));
    return;
  }
  if (!options.model) throw new Error('pass --model (the other generator) or --report FILE');
  const basePath = modelFileFromArgument(options.model);
  const { path: modelPath } = await widenedModel(basePath);
  const loaded = await loadLlamaModel({ path: modelPath, threads: options.threads, gpuLayers: 'auto' }, createStreamLogger('reprobe', 'warn'));
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  try {
    await probeAll(loaded.model, path.basename(basePath), await loaded.model.createSession(), options);
  } finally {
    await loaded.model.dispose();
  }
  console.log(reprobeReport(await readReprobes(options.out)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
