/**
 * A small stand-in for the real tokenizer artifact, for the parity test and the CI smoke run:
 * the test fixtures' byte-level BPE merges (a few hundred, learned from a short Python text)
 * with every RepoShapley special as a CONTROL token.
 *
 *   node dist/models/export/testTokenizer.js OUT.json   tokenizer artifact (reposhapley-tokenizer/1)
 *   node dist/models/export/testTokenizer.js OUT.gguf   the tiny test model, whose tokenizer.* keys export copies
 * Prints {"path", "vocabularySize"}.
 */
import { pathToFileURL } from 'node:url';
import { PYTHON_CORPUS, learnMerges } from '../../test/support/byteBpe.js';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { REPOSHAPLEY_SPECIAL_TOKENS } from '../../server/src/model/specialTokens.js';
import { buildArtifact, writeArtifact } from '../tokenizer/tokenizerArtifact.js';

/** Write the tokenizer (artifact for `.json`, GGUF otherwise); returns its vocabulary size. */
export async function writeTestTokenizer(path: string, merges = 300): Promise<number> {
  if (!path.endsWith('.json')) {
    const model = await writeTinyModel({ path, embeddingLength: 32, layers: 1, heads: 2, feedForwardLength: 32, maxMerges: merges });
    return model.tokens.length;
  }
  const learned = learnMerges(PYTHON_CORPUS, merges).map((m) => m.split(' ') as [string, string]);
  const distinct = new Set(learned.map(([a, b]) => a + b)).size;
  const artifact = buildArtifact(learned, 256 + distinct + REPOSHAPLEY_SPECIAL_TOKENS.length, { trainer: 'test fixture (test/support/byteBpe.ts)' });
  await writeArtifact(path, artifact);
  return artifact.tokens.length;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: testTokenizer OUT.json|OUT.gguf\n');
    process.exit(2);
  }
  writeTestTokenizer(out).then((vocabularySize) => {
    process.stdout.write(`${JSON.stringify({ path: out, vocabularySize })}\n`);
  });
}
