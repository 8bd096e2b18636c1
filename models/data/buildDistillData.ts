/**
 * CLI: distillation shards from ChunkShapley labels (issue 5 item 3; RepoShapley §3.4).
 *
 *   npx tsc && nice -n 10 node dist/models/data/buildDistillData.js [--labels DIR] [--source shapley]
 *     [--min-es 50] [--replay 1] [--replay-formats lm] [--echo-lines 2] [--out DIR]
 *
 * Every label record (models/labeling, any number of shard files) is rebuilt exactly as the
 * labeler saw it: the same corpus file, cursor and target, the server's retrieval and packing
 * (trainingSequences.ts prepareTarget). A record whose packed candidates differ now (the corpus,
 * index or retrieval changed since labeling) is skipped and counted, never relabeled silently.
 * Each usable instance gives the selection and generation formats (r* = NEED) or the
 * no-retrieval format (r* = DONE), see distillSequences.ts; `--source` picks the paper's labels
 * or an ablation's, and `--min-es` relabels the paper's at another τ_es. Records of validation
 * packages go to split "val". `--replay R` lists
 * R × (distillation train tokens) of train sequences of `--base-data` (the formats of
 * `--replay-formats`) in the same index (borrowed, not copied); `--base-data A,B --replay RA,RB`
 * replays from several sets, e.g. the fine-tuning set and an evidence-only set. The prompts carry the cursor
 * echo of `--echo-lines`, which must be the labeled generator's (its GGUF's
 * reposhapley.echo_lines): the labeler built its prompts with it. The trainer reads the
 * result like any shard index:
 *   models/train/run.sh --run distill --data OUT/index.json --init-weights BASE.pt ...
 */
import { Command } from 'commander';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { nonNegativeInt } from '../../bench/src/cliNumbers.js';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir } from '../corpus/corpusReader.js';
import { DEFAULT_CHUNKSHAPLEY_OPTIONS } from '../labeling/chunkShapley.js';
import type { LabelRecord } from '../labeling/labelRecord.js';
import { readLabelsByRepository, rebuildInstance } from '../labeling/rebuildInstance.js';
import type { LabelThresholds } from '../labeling/labels.js';
import { distillLabel, distillSequences, LABEL_SOURCES, type LabelSource } from './distillSequences.js';
import { seededRandom } from './random.js';
import { concatBorrowed, replaySources, selectReplay, type ShardIndex } from './replay.js';
import { openRepository } from './repositoryTools.js';
import { ShardWriter, writeIndex, type SequenceRow } from './shards.js';
import { parseSequenceFormats, type PromptSettings, type RepositoryTools } from './trainingSequences.js';
import { openVocabTokenizer } from './vocabTokenizer.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

interface Options {
  labels: string;
  source: LabelSource;
  manifest: string;
  corpus: string;
  tokenizer: string;
  baseData: string;
  replay: string;
  replayFormats: string;
  echoLines: number;
  minEs?: number;
  out?: string;
  context?: number;
}

/** What happened to the records, for the log and the index. */
interface Counts {
  records: number;
  used: number;
  need: number;
  done: number;
  /** No label from this source (the Shapley labeler discarded it). */
  unlabeled: number;
  /** The file, target or packed candidates differ from what was labeled. */
  stale: number;
  keptChunks: number;
  packedChunks: number;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const out = options.out ?? path.join(defaultCacheDir(), `distill-${options.source}`);
  await mkdir(out, { recursive: true });
  const sources = replaySources(options.baseData, options.replay);
  const bases = await Promise.all(sources.map(async (source) =>
    JSON.parse(await readFile(source.baseData, 'utf8')) as ShardIndex & { contextSize: number }));
  const contextSize = options.context ?? bases[0]!.contextSize;
  const replayFormats = parseSequenceFormats(options.replayFormats, '--replay-formats');
  const vocab = await openVocabTokenizer(options.tokenizer, path.join(out, 'vocab.gguf'));
  // The prompts are rebuilt as the labeler built them, with the generator's cursor echo (not
  // the base index's: a pretraining index made before the echo existed records none).
  const prompt: PromptSettings = { contextSize, settings: DEFAULT_SETTINGS, special: vocab.special, echoLines: options.echoLines };
  const writers = {
    train: await ShardWriter.create(out, 'train', { vocabSize: vocab.vocabSize }),
    val: await ShardWriter.create(out, 'val', { vocabSize: vocab.vocabSize }),
  };
  const thresholds = options.minEs === undefined ? undefined : { ...DEFAULT_CHUNKSHAPLEY_OPTIONS.thresholds, minEs: options.minEs };
  const counts: Counts = { records: 0, used: 0, need: 0, done: 0, unlabeled: 0, stale: 0, keptChunks: 0, packedChunks: 0 };
  try {
    const corpus = await Corpus.open(options.manifest, options.corpus);
    for (const [repository, records] of await readLabelsByRepository(options.labels)) {
      const repo = await openRepository(path.join(corpus.dir, repository), DEFAULT_SETTINGS, vocab.tokenizer);
      try {
        for (const record of records) await addRecord(record, repo, prompt, writers[record.split], options.source, counts, thresholds);
      } finally {
        repo.dispose();
      }
      log(`${repository.padEnd(28)} ${records.length} records; so far ${counts.used} used, ${counts.stale} stale`);
    }
    const summaries = [await writers.train.close(), await writers.val.close()];
    // The first source keeps the seed a single --base-data always had, so older recipes rebuild the same replay.
    const parts = sources.map((source, i) => selectReplay(
      bases[i]!, path.dirname(source.baseData), out, Math.round(source.ratio * summaries[0]!.tokens),
      seededRandom(i === 0 ? `replay:${options.source}` : `replay:${options.source}:${i}`), replayFormats,
    ));
    const replay = concatBorrowed(parts);
    const tokensOf = (rows: readonly SequenceRow[]) => rows.reduce((a, r) => a + r[2], 0);
    await writeIndex(out, [writers.train, writers.val], summaries, {
      tokenizer: path.relative(REPO_ROOT, options.tokenizer), tokenizerSha256: vocab.tokenizerSha256, vocabGguf: 'vocab.gguf',
      contextSize, echoLines: options.echoLines, special: vocab.special, labelSource: options.source, labels: options.labels, thresholds, counts,
      replay: {
        ratio: sources.map((s) => s.ratio), baseData: sources.map((s) => s.baseData), formats: [...replayFormats],
        sequences: replay.rows.length, tokens: tokensOf(replay.rows),
        bySource: sources.map((s, i) => ({ ...s, sequences: parts[i]!.rows.length, tokens: tokensOf(parts[i]!.rows) })),
      },
    }, replay);
    for (const summary of summaries) log(`${summary.split}: ${summary.sequences} sequences, ${summary.tokens} tokens ${JSON.stringify(summary.tokensByFormat)}`);
    log(`replay: ${replay.rows.length} pretraining sequences; ${JSON.stringify(counts)} -> ${path.join(out, 'index.json')}`);
  } finally {
    await vocab.dispose();
  }
}

async function addRecord(
  record: LabelRecord, repo: RepositoryTools, prompt: PromptSettings, writer: ShardWriter, source: LabelSource, counts: Counts,
  thresholds: LabelThresholds | undefined,
): Promise<void> {
  counts.records++;
  const label = distillLabel(record, source, thresholds);
  if (!label) {
    counts.unlabeled++;
    return;
  }
  const prepared = await rebuildInstance(record, repo, prompt);
  if (!prepared) {
    counts.stale++;
    return;
  }
  counts.used++;
  counts[label.retrieval]++;
  counts.packedChunks += label.keep.length;
  counts.keptChunks += label.keep.filter(Boolean).length;
  for (const sequence of distillSequences(prepared.plan, prepared.y, record.kind, label, prompt.special)) {
    await writer.add(sequence, { package: record.repository, path: record.path, kind: record.kind });
  }
}

function parseOptions(): Options {
  const options = new Command()
    .option('--labels <dir>', 'label JSONL folder (all *.jsonl files)', path.join(defaultCacheDir(), 'labels'))
    .option('--source <name>', `label source: ${LABEL_SOURCES.join(' | ')} (the last two are ablations)`, 'shapley')
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .option('--tokenizer <file>', 'tokenizer artifact', path.join(REPO_ROOT, 'models', 'default', 'tokenizer.json'))
    .option('--base-data <indexes>', 'shard index(es) to replay from, comma-separated', path.join(defaultCacheDir(), 'data', 'index.json'))
    .option('--replay <ratios>', 'replayed tokens per distillation token: one ratio for every --base-data index, or one each (comma-separated)', '1')
    .option('--replay-formats <list>', 'formats replayed from --base-data (lm,fim,rag; fim and rag only from a set with the generator\'s cursor echo)', 'lm')
    .option('--echo-lines <n>', 'cursor echo of the labeled generator (its GGUF\'s reposhapley.echo_lines)', nonNegativeInt, 2)
    .option('--min-es <n>', `τ_es for the shapley source: relabel every record from its decoded pool (ε ${DEFAULT_CHUNKSHAPLEY_OPTIONS.thresholds.epsilon}; default: the labels as the labeler kept them, τ_es ${DEFAULT_CHUNKSHAPLEY_OPTIONS.thresholds.minEs})`, (v) => Number(v))
    .option('--out <dir>', 'output folder (default: <cache>/distill-<source>)')
    .option('--context <n>', 'context size prompts were budgeted for (default: the base index\'s)', (v) => Number(v))
    .parse()
    .opts<Options>();
  if (!LABEL_SOURCES.includes(options.source)) throw new Error(`--source must be one of ${LABEL_SOURCES.join(', ')}`);
  if (options.minEs !== undefined && !(options.minEs >= 0 && options.minEs <= 100)) throw new Error('--min-es must be an ES between 0 and 100');
  if (options.minEs !== undefined && options.source !== 'shapley') throw new Error('--min-es applies to --source shapley only (the ablations discard nothing)');
  return options;
}

function log(line: string): void {
  process.stdout.write(line + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`buildDistillData: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
