/**
 * The final hidden state h (after the output norm, before the output matrix) at chosen positions:
 * what the control rows of a pretrained model are trained against (issue 20, "the frozen model's
 * hidden states at the decision positions"). softmax(W_out·h) is the model's next-token
 * distribution; docs/training.md records the parity check (top tokens agree to 1e-4).
 *
 * node-llama-cpp exposes h only through an embedding context, whose creation option and native
 * read are internal (`_embeddings`, `_ctx.getEmbedding`); both are checked at creation so a
 * node-llama-cpp upgrade that moves them fails here with a message, not with garbage.
 */
import type { LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import type { HiddenStateReader } from '../completionModel.js';
import { adapterOption } from './contextOptions.js';

interface EmbeddingNative {
  getEmbedding(inputTokensLength: number, maxVectorSize?: number): Float64Array;
}

export async function createHiddenStateReader(
  model: LlamaModel, settings: { contextSize: number; threads: number; batchSize?: number; adapterPath?: string },
): Promise<HiddenStateReader> {
  const context = await model.createContext({
    contextSize: settings.contextSize, sequences: 1, threads: settings.threads, flashAttention: false,
    ...(settings.batchSize ? { batchSize: settings.batchSize } : {}),
    ...adapterOption(settings),
    // Internal in node-llama-cpp 3.x: makes llama.cpp keep the output norm's result.
    ...({ _embeddings: true } as object),
  });
  const native = (context as unknown as { _ctx?: Partial<EmbeddingNative> })._ctx;
  if (typeof native?.getEmbedding !== 'function') {
    await context.dispose();
    throw new Error('this node-llama-cpp has no embedding read-out (LlamaContext._ctx.getEmbedding); hidden states need node-llama-cpp 3.x');
  }
  return new LlamaHiddenStateReader(context, context.getSequence(), native as EmbeddingNative);
}

class LlamaHiddenStateReader implements HiddenStateReader {
  constructor(
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
    private readonly native: EmbeddingNative,
  ) {}

  async statesAfter(prefix: readonly number[], steps: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const total = prefix.length + steps.reduce((sum, step) => sum + step.length, 0);
    if (total >= this.context.contextSize) throw new RangeError(`${total} tokens do not fit the context of ${this.context.contextSize}`);
    if (prefix.length === 0 || steps.some((step) => step.length === 0)) throw new RangeError('every part must have at least one token');
    // Keep what the last call evaluated of this prefix (the feature extractor reads the trigger
    // twice, for the generation and the selection positions), but re-feed the prefix's last
    // token: h exists only while a token is evaluated.
    const common = this.sequence.compareContextTokens(prefix as Token[]).firstDifferentIndex;
    const reused = Math.min(common, prefix.length - 1);
    if (this.sequence.nextTokenIndex > reused) await this.sequence.eraseContextTokenRanges([{ start: reused, end: this.sequence.nextTokenIndex }]);
    const states = [await this.evaluate(prefix.slice(reused))];
    for (const step of steps) states.push(await this.evaluate(step));
    return states;
  }

  /** Evaluates `tokens` after what the sequence holds; h of the last one. */
  private async evaluate(tokens: readonly number[]): Promise<Float32Array> {
    // Only positions that produce an output have h; the last token asks for one.
    const items = tokens.map((token, i) => (i === tokens.length - 1 ? [token as Token, { generateNext: { token: true } }] as const : token as Token));
    await this.sequence.controlledEvaluate(items as Parameters<LlamaContextSequence['controlledEvaluate']>[0]);
    return Float32Array.from(this.native.getEmbedding(1));
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
  }
}
