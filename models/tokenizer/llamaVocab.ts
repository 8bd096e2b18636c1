/**
 * A tokenizer-only llama.cpp model through node-llama-cpp, loaded from a vocab-only GGUF:
 * the tokenization inference uses, without weights. The data builder tokenizes training
 * sequences with it, so training ids are inference ids by construction; the parity check
 * compares it with the trainer's own encoder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel, type Token } from 'node-llama-cpp';
import type { TokenizerArtifact } from './tokenizerArtifact.js';
import { writeVocabOnlyGguf } from './vocabGguf.js';

export interface LlamaVocab {
  /** Plain text (special tokens never parsed), as the server's LlamaCompletionModel.tokenize. */
  tokenize(text: string): number[];
  /** With special-token texts parsed into their ids. */
  tokenizeWithSpecials(text: string): number[];
  detokenize(ids: readonly number[], specialTokens?: boolean): string;
  readonly model: LlamaModel;
  dispose(): Promise<void>;
}

/** Write the artifact as a vocab-only GGUF into a temporary folder and load it. */
export async function loadLlamaVocab(artifact: TokenizerArtifact): Promise<LlamaVocab> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'reposhapley-vocab-'));
  const file = path.join(dir, 'vocab.gguf');
  try {
    await writeVocabOnlyGguf(artifact, file);
    return await loadLlamaVocabFile(file, () => rm(dir, { recursive: true, force: true }));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

let shared: Promise<Llama> | undefined;

/** One llama.cpp runtime per process: its log callback is process-wide. */
function runtime(): Promise<Llama> {
  // build 'never': a missing prebuilt binary fails at once instead of compiling llama.cpp.
  shared ??= getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, logger: quietAboutTensors, progressLogs: false, maxThreads: 1 });
  return shared;
}

/** Load an existing GGUF's vocabulary only. */
export async function loadLlamaVocabFile(file: string, onDispose: () => Promise<void> = async () => undefined): Promise<LlamaVocab> {
  const llama = await runtime();
  const model = await llama.loadModel({ modelPath: file, vocabOnly: true });
  return {
    model,
    tokenize: (text) => Array.from(model.tokenize(text, false)),
    tokenizeWithSpecials: (text) => Array.from(model.tokenize(text, true)),
    detokenize: (ids, specialTokens = false) => model.detokenize(ids as Token[], specialTokens),
    async dispose() {
      await model.dispose();
      await onDispose();
    },
  };
}

/**
 * Loading a vocab-only file through node-llama-cpp 3.21.1 logs "missing tensor
 * 'token_embd.weight'" and "failed to load model" and then returns a working vocab-only model
 * (observed; apparently an attempt that wants weights). Those two lines are noise here;
 * anything else goes to stderr.
 */
function quietAboutTensors(level: LlamaLogLevel, message: string): void {
  if (/missing tensor|failed to load model/.test(message)) return;
  process.stderr.write(`[llama.cpp ${level}] ${message.trimEnd()}\n`);
}
