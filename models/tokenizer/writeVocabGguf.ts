/**
 * CLI: write the tokenizer artifact as a vocab-only GGUF (no tensors), e.g. for tokenizing with
 * node-llama-cpp (`loadModel({modelPath, vocabOnly: true})`) or llama.cpp's tools.
 *
 *   npx tsc && node dist/models/tokenizer/writeVocabGguf.js OUT.gguf [--tokenizer models/default/tokenizer.json]
 */
import { Command } from 'commander';
import path from 'node:path';
import { readArtifact } from './tokenizerArtifact.js';
import { writeVocabOnlyGguf } from './vocabGguf.js';
import { REPO_ROOT } from '../../bench/src/repoPaths.js';

async function main(): Promise<void> {
  const program = new Command()
    .argument('<out>', 'GGUF file to write')
    .option('--tokenizer <file>', 'artifact', path.join(REPO_ROOT, 'models', 'default', 'tokenizer.json'))
    .parse();
  const out = program.args[0]!;
  const artifact = await readArtifact(program.opts<{ tokenizer: string }>().tokenizer);
  await writeVocabOnlyGguf(artifact, out);
  process.stdout.write(`${JSON.stringify({ path: out, vocabularySize: artifact.tokens.length })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`writeVocabGguf: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
