/**
 * llama.cpp's tokenizer for the project's tokenizer artifact, as the data builders use it: a
 * vocab-only GGUF written from the artifact and loaded through node-llama-cpp, so the ids in
 * the shards are the ids inference produces.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SpecialTokenIds } from '../../server/src/model/completionModel.js';
import { readGgufHeader } from '../../server/src/model/gguf/ggufReader.js';
import { scanSpecialTokens } from '../../server/src/model/llama/specialTokenIds.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { loadLlamaVocabFile } from '../tokenizer/llamaVocab.js';
import { readArtifact } from '../tokenizer/tokenizerArtifact.js';
import { writeVocabOnlyGguf } from '../tokenizer/vocabGguf.js';

export interface VocabTokenizer {
  tokenizer: LineTokenizer;
  special: SpecialTokenIds;
  vocabSize: number;
  tokenizerSha256: string;
  dispose(): Promise<void>;
}

/** Write `ggufPath` from the artifact at `tokenizerPath` and load it; it must have the control tokens. */
export async function openVocabTokenizer(tokenizerPath: string, ggufPath: string): Promise<VocabTokenizer> {
  const artifact = await readArtifact(tokenizerPath);
  await writeVocabOnlyGguf(artifact, ggufPath);
  const header = await readGgufHeader(ggufPath);
  if (header.kind !== 'ok') throw new Error(`cannot read back ${ggufPath}: ${header.message}`);
  const scan = scanSpecialTokens(header.header);
  if (!scan.hasControlTokens) throw new Error('the tokenizer lacks the RepoShapley control tokens');
  const vocab = await loadLlamaVocabFile(ggufPath);
  return {
    tokenizer: new LineTokenizer({ tokenize: vocab.tokenize }),
    special: scan.special,
    vocabSize: artifact.tokens.length,
    tokenizerSha256: createHash('sha256').update(await readFile(tokenizerPath)).digest('hex'),
    dispose: () => vocab.dispose(),
  };
}
