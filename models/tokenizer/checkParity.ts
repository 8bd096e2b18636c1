/**
 * CLI: tokenizer parity on corpus files (issue 4 item 2).
 *
 *   npx tsc && nice -n 10 node dist/models/tokenizer/checkParity.js --files 1000
 *
 * Writes the artifact as a vocab-only GGUF with the project's GGUF writer, loads it with
 * node-llama-cpp (`vocabOnly: true`), and compares its ids with the trainer's encoder on
 * --files corpus files (a fixed hashed sample over all packages), line by line and whole;
 * then checks the special tokens. Exits 1 on any mismatch.
 */
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Corpus, DEFAULT_MANIFEST, defaultCorpusDir } from '../corpus/corpusReader.js';
import { hfTokenizerFor } from './hfTokenizer.js';
import { loadLlamaVocab } from './llamaVocab.js';
import { checkParity } from './parity.js';
import { checkSpecialTokens } from './specialsCheck.js';
import { readArtifact } from './tokenizerArtifact.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

async function main(): Promise<void> {
  const options = new Command()
    .option('--tokenizer <file>', 'artifact', path.join(REPO_ROOT, 'models', 'default', 'tokenizer.json'))
    .option('--manifest <file>', 'corpus manifest', DEFAULT_MANIFEST)
    .option('--corpus <dir>', 'corpus folder', defaultCorpusDir())
    .option('--files <n>', 'number of corpus files', (v) => Number(v), 1000)
    .parse()
    .opts<{ tokenizer: string; manifest: string; corpus: string; files: number }>();
  const artifact = await readArtifact(options.tokenizer);
  const corpus = await Corpus.open(options.manifest, options.corpus);
  const rows = corpus.packages.flatMap((p) => p.files)
    .map((row) => ({ row, key: createHash('sha1').update(`${row.package}/${row.path}`).digest('hex') }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .slice(0, options.files)
    .map((x) => x.row);
  const files = await Promise.all(rows.map(async (row) => ({ label: `${row.package}/${row.path}`, text: await corpus.readText(row) })));
  const vocab = await loadLlamaVocab(artifact);
  try {
    const started = Date.now();
    const report = await checkParity(files, hfTokenizerFor(artifact), vocab.tokenize);
    const specials = checkSpecialTokens(artifact, vocab);
    process.stdout.write(JSON.stringify({ ...report, specialTokenProblems: specials, seconds: (Date.now() - started) / 1000 }, null, 1) + '\n');
    if (report.mismatchedFiles > 0 || specials.length > 0) process.exitCode = 1;
  } finally {
    await vocab.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`checkParity: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exitCode = 1;
});
