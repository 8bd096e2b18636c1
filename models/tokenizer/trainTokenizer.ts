/**
 * CLI: train the tokenizer (issue 4 item 2).
 *
 *   npx tsc && RAYON_NUM_THREADS=2 nice -n 10 node dist/models/tokenizer/trainTokenizer.js
 *
 * 1. Samples the corpus by package (at most --bytes-per-package of each training package, the
 *    standard library 4x), skipping the validation packages, into one text file.
 * 2. Trains a byte-level BPE with Hugging Face tokenizers (30,000 merges, greedy, so every
 *    smaller size is a prefix).
 * 3. Measures bytes/token on the validation packages for each --sizes candidate, with the
 *    training throughput each implies, and writes the --vocab-size artifact to
 *    models/default/tokenizer.json and the measurements to models/default/tokenizer-report.json.
 */
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir } from '../corpus/corpusReader.js';
import { STDLIB_NAME } from '../corpus/corpusSources.js';
import { isValidationPackage, VALIDATION_PACKAGES } from '../corpus/splits.js';
import { estimatedTrainingTokensPerSecond, measureCompression } from './compression.js';
import { hfTokenizerFor, trainMerges } from './hfTokenizer.js';
import { buildArtifact, writeArtifact } from './tokenizerArtifact.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

/** The shipped size; docs/model-pipeline.md has the measurements behind it. */
export const DEFAULT_VOCAB_SIZE = 8_192;

interface Options {
  manifest: string;
  corpus: string;
  work: string;
  bytesPerPackage: number;
  sizes: string;
  vocabSize: number;
  out: string;
  report: string;
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .option('--work <dir>', 'scratch folder', path.join(defaultCacheDir(), 'tokenizer'))
    .option('--bytes-per-package <n>', 'training sample per package', (v) => Number(v), 300_000)
    .option('--sizes <list>', 'candidate vocabulary sizes to measure', '8192,12288,16384,24576')
    .option('--vocab-size <n>', 'size of the artifact written', (v) => Number(v), DEFAULT_VOCAB_SIZE)
    .option('--out <file>', 'artifact', path.join(REPO_ROOT, 'models', 'default', 'tokenizer.json'))
    .option('--report <file>', 'measurements', path.join(REPO_ROOT, 'models', 'default', 'tokenizer-report.json'))
    .parse()
    .opts<Options>();
  const corpus = await Corpus.open(options.manifest, options.corpus);
  await mkdir(options.work, { recursive: true });

  const sample = await sampleTrainingText(corpus, options.bytesPerPackage);
  const trainFile = path.join(options.work, 'train.txt');
  await writeFile(trainFile, sample.text);
  log(`training sample: ${(sample.bytes / 1e6).toFixed(1)} MB from ${sample.packages} packages -> ${trainFile}`);

  const started = Date.now();
  const merges = await trainMerges([trainFile], path.join(options.work, 'hf-tokenizer.json'));
  const trainSeconds = (Date.now() - started) / 1000;
  log(`trained ${merges.length} merges in ${trainSeconds.toFixed(1)} s`);

  const heldOut: string[] = [];
  for (const pkg of corpus.packages.filter((p) => isValidationPackage(p.name))) {
    for (const row of pkg.files) heldOut.push(await corpus.readText(row));
  }
  const training = {
    trainer: 'huggingface tokenizers 0.23.2 (npm), BPE default trainer, pre-tokenizer Sequence[Digits(individual), ByteLevel(GPT-2 regex, no prefix space)]',
    sampleBytes: sample.bytes,
    samplePackages: sample.packages,
    bytesPerPackage: options.bytesPerPackage,
    heldOutPackages: VALIDATION_PACKAGES,
  };
  const rows = [];
  for (const size of options.sizes.split(',').map(Number)) {
    const artifact = buildArtifact(merges, size, training);
    const measured = await measureCompression(hfTokenizerFor(artifact), heldOut);
    const tokensPerSecond = estimatedTrainingTokensPerSecond(size);
    rows.push({ vocabSize: size, ...measured, estTrainTokensPerSecond: Math.round(tokensPerSecond), estTrainBytesPerSecond: Math.round(tokensPerSecond * measured.bytesPerToken) });
    log(`vocab ${size}: ${measured.bytesPerToken.toFixed(3)} bytes/token on ${(measured.bytes / 1e6).toFixed(1)} MB held out; est. ${Math.round(tokensPerSecond)} train tok/s = ${Math.round(tokensPerSecond * measured.bytesPerToken)} bytes/s`);
  }
  const chosen = buildArtifact(merges, options.vocabSize, { ...training, compression: rows });
  await writeArtifact(options.out, chosen);
  // Timings go to the report only: the artifact must be identical run to run.
  await writeFile(options.report, JSON.stringify({ chosenVocabSize: options.vocabSize, ...training, trainSeconds, compression: rows }, null, 1) + '\n');
  log(`wrote ${options.out} (${chosen.tokens.length} tokens, ${chosen.merges.length} merges) and ${options.report}`);
}

/** At most `bytesPerPackage` of each training package (4x for the standard library), files in a fixed hashed order. */
async function sampleTrainingText(corpus: Corpus, bytesPerPackage: number): Promise<{ text: string; bytes: number; packages: number }> {
  const parts: string[] = [];
  let bytes = 0;
  let packages = 0;
  for (const pkg of corpus.packages) {
    if (isValidationPackage(pkg.name)) continue;
    packages++;
    const budget = pkg.name === STDLIB_NAME ? 4 * bytesPerPackage : bytesPerPackage;
    const order = [...pkg.files].sort((a, b) => (hash(a.path) < hash(b.path) ? -1 : 1));
    let used = 0;
    for (const row of order) {
      if (used > 0 && used + row.bytes > budget) continue;
      let text = await corpus.readText(row);
      if (!text.endsWith('\n')) text += '\n'; // a file's last line must not run into the next file's first
      parts.push(text);
      used += row.bytes;
    }
    bytes += used;
  }
  return { text: parts.join(''), bytes, packages };
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

function log(line: string): void {
  process.stdout.write(line + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`trainTokenizer: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
