/**
 * CLI: build training shards (issue 4 item 3).
 *
 *   npx tsc && nice -n 10 node dist/models/data/buildData.js [--context 1024] [--targets-per-package 60]
 *
 * For every corpus repository: language-modeling windows over all its kept files, and
 * --targets-per-package completion targets (line/api/block) each as a no-retrieval (fim) and a
 * retrieval (rag) sequence built by the server's index, retrieval and prompt modules.
 * Token ids come from llama.cpp (node-llama-cpp, vocab-only GGUF of models/default/tokenizer.json),
 * so training ids are inference ids by construction. Validation packages (corpus/splits.ts)
 * go to split "val" (<out>/val/), the rest to "train"; <out>/index.json indexes both.
 * See docs/model-pipeline.md for the format.
 */
import { Command } from 'commander';
import { nonNegativeInt } from '../../bench/src/cliNumbers.js';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import type { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir, type CorpusPackage } from '../corpus/corpusReader.js';
import { isValidationPackage, VALIDATION_PACKAGES } from '../corpus/splits.js';
import { openRepository } from './repositoryTools.js';
import { seededRandom } from './random.js';
import { selectReplay, type ShardIndex } from './replay.js';
import { ShardWriter, writeIndex, type BorrowedShards } from './shards.js';
import { openVocabTokenizer } from './vocabTokenizer.js';
import { drawTargets, type TargetKind } from './targets.js';
import { lmWindows, parseSequenceFormats, targetSequences, type PromptSettings, type SequenceFormat } from './trainingSequences.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

interface Options {
  manifest: string;
  corpus: string;
  tokenizer: string;
  out: string;
  context: number;
  targetsPerPackage: number;
  mix: string;
  only?: string;
  formats: string;
  replayFrom?: string;
  replay: number;
  replayFormats: string;
  seed: string;
  echoLines: number;
  evidenceOnly: boolean;
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .option('--tokenizer <file>', 'tokenizer artifact', path.join(REPO_ROOT, 'models', 'default', 'tokenizer.json'))
    .option('--out <dir>', 'output folder', path.join(defaultCacheDir(), 'data'))
    .option('--context <n>', 'model context size the prompts are budgeted for (= llama.context_length of the GGUF)', (v) => Number(v), 1024)
    .option('--targets-per-package <n>', 'completion targets per repository (each gives a fim and a rag sequence)', (v) => Number(v), 60)
    .option('--mix <spec>', 'share of target kinds', 'line=0.4,api=0.3,block=0.3')
    .option('--only <names>', 'comma-separated packages (smoke runs)')
    .option('--formats <list>', 'sequence formats to build: lm,fim,rag (a targeted fine-tuning set leaves out lm)', 'lm,fim,rag')
    .option('--replay-from <index>', 'another shard index whose train sequences are listed (not copied) for replay')
    .option('--replay <ratio>', 'replayed tokens per built train token (with --replay-from)', (v) => Number(v), 1)
    .option('--replay-formats <list>', 'formats replayed: lm only by default, since another index\'s fim/rag prompts may be in an older format (no cursor echo, other targets)', 'lm')
    .option('--seed <text>', 'target sampling seed (a different seed draws different targets)', '')
    .option('--evidence-only', 'keep only targets with an identifier that a packed chunk holds and the in-file context does not (what a model can write only by copying from the evidence), as rag sequences: a copying fine-tune\'s set')
    .option('--echo-lines <n>', 'prefix lines repeated after <MID> (prompt/sequences.ts cursor echo; export the model with the same --echo-lines)', nonNegativeInt, 2)
    .parse()
    .opts<Options>();
  const started = Date.now();
  await mkdir(options.out, { recursive: true });
  const vocab = await openVocabTokenizer(options.tokenizer, path.join(options.out, 'vocab.gguf'));
  const { tokenizer } = vocab;
  const settings = DEFAULT_SETTINGS;
  const prompt: PromptSettings = { contextSize: options.context, settings, special: vocab.special, echoLines: options.echoLines };
  const mix = parseMix(options.mix);
  const formats = parseSequenceFormats(options.formats, '--formats');

  const corpus = await Corpus.open(options.manifest, options.corpus);
  const only = options.only ? new Set(options.only.split(',')) : undefined;
  const writers = {
    train: await ShardWriter.create(options.out, 'train', { vocabSize: vocab.vocabSize }),
    val: await ShardWriter.create(options.out, 'val', { vocabSize: vocab.vocabSize }),
  };
  try {
    for (const pkg of corpus.packages) {
      if (only && !only.has(pkg.name)) continue;
      const writer = isValidationPackage(pkg.name) ? writers.val : writers.train;
      const stats = await buildPackage(corpus, pkg, writer, tokenizer, prompt, options, mix, formats);
      const noEvidence = options.evidenceOnly ? `, ${stats.noEvidence} without evidence-only identifiers` : '';
      log(`${pkg.name.padEnd(28)} lm ${String(stats.lm).padStart(5)}  fim ${String(stats.fim).padStart(4)}  rag ${String(stats.rag).padStart(4)}  (${stats.cut} cut to maxTokens, ${stats.skipped} skipped${noEvidence})`);
    }
    const summaries = [await writers.train.close(), await writers.val.close()];
    const replayFormats = parseSequenceFormats(options.replayFormats, '--replay-formats');
    const replay = options.replayFrom
      ? await replayFrom(options.replayFrom, options.out, options.replay * summaries[0]!.tokens, replayFormats)
      : undefined;
    await writeIndex(options.out, [writers.train, writers.val], summaries, {
      tokenizer: path.relative(REPO_ROOT, options.tokenizer), tokenizerSha256: vocab.tokenizerSha256, vocabGguf: 'vocab.gguf', contextSize: options.context, echoLines: options.echoLines,
      special: vocab.special, settings: { budgets: settings.budgets, maxTokens: settings.maxTokens, topK: settings.topK, windowLines: settings.windowLines, windowStride: settings.windowStride },
      targetsPerPackage: options.targetsPerPackage, mix, validationPackages: VALIDATION_PACKAGES, formats: [...formats], seed: options.seed,
      evidenceOnly: options.evidenceOnly === true,
      replay: replay ? { from: options.replayFrom, ratio: options.replay, formats: [...replayFormats], sequences: replay.rows.length } : undefined,
    }, replay);
    for (const summary of summaries) {
      log(`${summary.split}: ${summary.sequences} sequences, ${summary.tokens} tokens ${JSON.stringify(summary.tokensByFormat)}; supervised ${JSON.stringify(summary.supervisedTokensByFormat)}`);
    }
    log(`wrote ${path.join(options.out, 'index.json')} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await vocab.dispose();
  }
}

async function buildPackage(
  corpus: Corpus, pkg: CorpusPackage, writer: ShardWriter, tokenizer: LineTokenizer, prompt: PromptSettings,
  options: Options, mix: Record<TargetKind, number>, formats: ReadonlySet<SequenceFormat>,
): Promise<PackageStats> {
  const root = path.join(corpus.dir, pkg.name);
  const texts = await Promise.all(pkg.files.map(async (row) => ({ path: row.path, text: await corpus.readText(row) })));
  const stats: PackageStats = { lm: 0, fim: 0, rag: 0, cut: 0, skipped: 0, noEvidence: 0 };
  const windows = formats.has('lm') ? lmWindows(texts, tokenizer, prompt.special.endOfText!, prompt.contextSize) : [];
  for (const window of windows) {
    await writer.add(window, { package: pkg.name, path: window.path, kind: '' });
    stats.lm++;
  }
  // Retrieval is most of the build's time; an lm-only set (a replay source) needs none.
  if (!formats.has('fim') && !formats.has('rag')) return stats;
  const repo = await openRepository(root, prompt.settings as typeof DEFAULT_SETTINGS, tokenizer);
  try {
    const drawn = drawTargets(repo.index, options.seed ? `${options.seed}:${pkg.name}` : pkg.name, options.targetsPerPackage, mix, repo.parser);
    for (const kind of Object.keys(drawn) as TargetKind[]) {
      const wanted = Math.round(options.targetsPerPackage * mix[kind]);
      let made = 0;
      for (const target of drawn[kind]) {
        if (made >= wanted) break;
        const file = repo.index.file(target.relPath)!;
        const built = await targetSequences(repo, prompt, file.absPath, file.text, target);
        if (!built) { stats.skipped++; continue; }
        if (options.evidenceOnly && (built.evidenceOnly.length === 0 || !built.rag)) { stats.noEvidence++; continue; }
        made++;
        if (built.cut) stats.cut++;
        // A target only the evidence can complete teaches guessing without it: no fim sequence.
        if (formats.has('fim') && !options.evidenceOnly) {
          await writer.add(built.fim, { package: pkg.name, path: target.relPath, kind });
          stats.fim++;
        }
        if (built.rag && formats.has('rag')) {
          await writer.add(built.rag, { package: pkg.name, path: target.relPath, kind });
          stats.rag++;
        }
      }
    }
  } finally {
    repo.dispose();
  }
  return stats;
}

interface PackageStats {
  lm: number;
  fim: number;
  rag: number;
  cut: number;
  skipped: number;
  /** Targets left out by --evidence-only. */
  noEvidence: number;
}

/** Train sequences of another index, borrowed for replay (replay.ts). */
async function replayFrom(indexPath: string, out: string, tokens: number, formats: ReadonlySet<string>): Promise<BorrowedShards> {
  const base = JSON.parse(await readFile(indexPath, 'utf8')) as ShardIndex;
  return selectReplay(base, path.dirname(indexPath), out, Math.round(tokens), seededRandom(`replay:${indexPath}`), formats);
}

function parseMix(spec: string): Record<TargetKind, number> {
  const mix: Record<TargetKind, number> = { line: 0, api: 0, block: 0 };
  for (const part of spec.split(',')) {
    const [kind, share] = part.split('=');
    if (!(kind! in mix) || !Number.isFinite(Number(share))) throw new Error(`bad --mix part ${JSON.stringify(part)}`);
    mix[kind as TargetKind] = Number(share);
  }
  return mix;
}

function log(line: string): void {
  process.stdout.write(line + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`buildData: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
