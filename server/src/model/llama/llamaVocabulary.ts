/**
 * A model's tokenizer without its weights (llama.cpp's vocab-only load), for a process that
 * budgets prompts while another process evaluates them (model/childProcess/). Tokenizing is
 * synchronous in the port and runs many times per completion, so it stays in the server rather
 * than costing a round trip each; it is the same llama.cpp code the evaluating process runs,
 * so the ids agree.
 */
import type { Token } from 'node-llama-cpp';
import type { Logger } from '../../util/logger.js';
import { acquireRuntime, prepareRuntime } from './llamaRuntime.js';

/** Starts the CPU-only runtime the vocabulary is read with (see {@link loadLlamaVocabulary}). */
export function prepareVocabularyRuntime(): void {
  prepareRuntime('cpu');
}

export interface ModelVocabulary {
  /** Plain text, special tokens never parsed (as LlamaCompletionModel.tokenize). */
  tokenize(text: string): number[];
  detokenize(tokens: number[], specialTokens?: boolean): string;
  dispose(): Promise<void>;
}

/**
 * Loads only the vocabulary of the GGUF at `path`. Call it for a file another process has
 * already loaded whole: llama.cpp's checks of the vocabulary are the same, so a file that
 * passed there cannot abort here. Read, not memory-mapped, so a file replaced in place later
 * cannot raise SIGBUS in this process.
 */
export async function loadLlamaVocabulary(path: string, logger: Logger): Promise<ModelVocabulary> {
  const lease = await acquireRuntime(logger, 'cpu'); // a vocabulary needs no GPU
  try {
    const model = await lease.llama.loadModel({ modelPath: path, vocabOnly: true, useMmap: false, gpuLayers: 0 });
    return {
      tokenize: (text) => Array.from(model.tokenize(text, false)),
      detokenize: (tokens, specialTokens = false) => model.detokenize(tokens as Token[], specialTokens),
      async dispose() {
        await model.dispose();
        lease.release();
      },
    };
  } catch (error) {
    lease.release();
    throw error;
  }
}
