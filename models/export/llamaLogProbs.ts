/**
 * Teacher-forced next-token log-probabilities of a GGUF model through the real node-llama-cpp,
 * for the export parity check. node-llama-cpp 3.21.1 exposes no raw logits; at temperature 0
 * `controlledEvaluate` with `probabilities: true` returns softmax(logits) over the whole
 * vocabulary (the greedy sampler leaves the candidates untouched), so ln p equals the logits up
 * to the per-position softmax constant, which is what a parity check needs.
 *
 * This file and server/src/model/llama/ are the only places that import node-llama-cpp.
 */
import { getLlama, LlamaLogLevel, type Token } from 'node-llama-cpp';

export interface LogProbOptions {
  /** CPU threads for llama.cpp (default 2; more than the cores is very slow here). */
  threads?: number;
  /**
   * Exact attention: KV cache in F32 and flash attention off. By default llama.cpp keeps K/V in
   * F16 and ("auto") uses flash attention on CPU, which rounds V to F16: ~1e-3 nats of error.
   */
  exactAttention?: boolean;
  /** Use a GPU when one is usable (default false: the CPU path is the reproducible one). */
  gpu?: boolean;
}

/** ln p(· | tokens[0..t]) for each position t: one Float64Array over the vocabulary per token. */
export async function llamaLogProbs(modelPath: string, tokens: number[], options: LogProbOptions = {}): Promise<Float64Array[]> {
  const threads = options.threads ?? 2;
  const llama = await getLlama({
    gpu: options.gpu ? 'auto' : false,
    build: 'never',
    logLevel: LlamaLogLevel.error,
    progressLogs: false,
    maxThreads: threads,
  });
  const model = await llama.loadModel({ modelPath, gpuLayers: options.gpu ? 'auto' : 0 });
  try {
    const exact = options.exactAttention ?? false;
    const context = await model.createContext({
      // Room beyond the tokens: a full context makes node-llama-cpp shift it (dropping the
      // first tokens) before the last evaluation, which changed the last position's logits.
      contextSize: tokens.length + 64,
      batchSize: tokens.length + 64,
      sequences: 1,
      threads,
      ...(exact ? { flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' } as const : {}),
    });
    try {
      const sequence = context.getSequence();
      const results = await sequence.controlledEvaluate(
        tokens.map((token) => [token as Token, { generateNext: { probabilities: true, options: { temperature: 0 } } }]),
      );
      return results.map((result, position) => {
        const probabilities = result?.next.probabilities;
        if (!probabilities) throw new Error(`node-llama-cpp returned no probabilities at position ${position}`);
        // The greedy sampler keeps every candidate, so the map covers the whole vocabulary.
        const row = new Float64Array(probabilities.size).fill(-Infinity);
        for (const [token, p] of probabilities) row[token] = Math.log(p);
        return row;
      });
    } finally {
      await context.dispose();
    }
  } finally {
    await model.dispose();
  }
}
