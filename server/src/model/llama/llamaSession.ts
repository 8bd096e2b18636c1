/**
 * A ModelSession over one node-llama-cpp context sequence. Every operation aligns the KV
 * cache with its token sequence (keeping the common prefix, erasing the rest) and
 * evaluates only what is new, so Algorithm 1's prompts, which share their prefix with the
 * previous step, cost only their tails.
 *
 * Probabilities come from `controlledEvaluate` with `generateNext.probabilities`: in
 * node-llama-cpp 3.21.1 that is the softmax over the whole vocabulary of the raw logits
 * (the greedy sampler leaves logits untouched). Its cost grows with the vocabulary, so it
 * is asked only at positions whose distribution is needed.
 */
import type {
  ControlledEvaluateIndexOutput,
  ControlledEvaluateInputItem,
  LlamaContext,
  LlamaContextSequence,
  LlamaContextSequenceRepeatPenalty,
  Token,
  TokenBias,
} from 'node-llama-cpp';
import {
  type BinaryDecision,
  type GenerationOptions,
  type GenerationResult,
  type ModelSession,
} from '../completionModel.js';
import { binaryDecision, safeLog } from './binaryDecision.js';
import { findTextStop } from './stopRules.js';
import { cutAt, withoutPartialCharacter } from '../generatedText.js';
import { checkFits, checkTokenIds } from '../sessionChecks.js';
import { SerialQueue } from './serialQueue.js';
import { planShiftedReuse } from './shiftedReuse.js';

/** What a session needs from its model besides the sequence. */
export interface SessionModelHooks {
  /** Text of generated tokens; `previous` are the tokens before them (for leading-space rules). */
  detokenize(tokens: number[], previous: number[]): string;
  /** End of generation: EOS, end of text, or any control token. */
  isStopToken(token: number): boolean;
  /** Tokens generation never picks (the model's RepoShapley control tokens). */
  generationBias?: TokenBias;
  /**
   * Keep cached runs of at least this many tokens that moved, not only the common prefix
   * ({@link planShiftedReuse}); unset keeps the common prefix alone, so likelihoods stay exact.
   */
  shiftedReuseMinTokens?: number;
}

/**
 * A prompt is read in chunks, and between chunks an abort is noticed, so a chunk's duration is how
 * long a cancelled request may keep the model from the next keystroke's. Larger chunks read faster
 * where llama.cpp batches well (the derived model's Q8_0 matrices on AMX, 0.5B, two threads: 324,
 * 455, 508 and 557 tokens/s for chunks of 32, 64, 128 and 256; with Q5_0 matrices it was flat at
 * ~200: docs/history/2026-12-04-bench-q8-shifted-reuse.md, "Prompt chunks sized by time"). So each chunk is sized from the speed
 * of the last one to take about PROMPT_CHUNK_MS, between 32 and 256 tokens: 64–96 here, 32 on
 * a CPU that reads 40 tokens/s.
 */
const PROMPT_CHUNK_MS = 250;
const PROMPT_CHUNK_MIN = 32;
const PROMPT_CHUNK_MAX = 256;
/**
 * For a shared evaluator's estimate of work (pendingWork): a generated token is one forward pass of
 * its own, about as long as reading ten prompt tokens in a batch on a CPU (2-core AMX Xeon, the 0.5B:
 * ~30 ms against ~2.5 ms), and completions end after about a dozen tokens (a line).
 */
const GENERATED_TOKEN_WORK = 10;
const EXPECTED_GENERATED_TOKENS = 12;
/** Prompt tokens passed to detokenize as context for the generated text. */
const DETOKENIZE_CONTEXT = 8;

const PROBABILITIES = { generateNext: { probabilities: true } } as const;

export class LlamaSession implements ModelSession {
  private readonly queue = new SerialQueue();
  private lastReused = 0;
  private totalReused = 0;
  /** Tokens in the next prompt chunk ({@link learnChunkSize}); the first prompt starts small. */
  private chunkTokens = PROMPT_CHUNK_MIN;
  private pausePoint?: (remainingWork: number) => Promise<void>;
  /** Work the running operation has left after its prompt (a generation's), for pausePoint. */
  private workAfterPrompt = 0;

  constructor(
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
    /** Positions an operation may use: the configured size, never more than the sequence holds. */
    private readonly contextSize: number,
    private readonly vocabularySize: number,
    private readonly hooks: SessionModelHooks,
    private readonly onDispose: () => void = () => undefined,
  ) {}

  get lastReusedTokens(): number {
    return this.lastReused;
  }

  setPausePoint(pause: ((remainingWork: number) => Promise<void>) | undefined): void {
    this.pausePoint = pause;
  }

  pendingWork(tokens: number[], generating: boolean): number {
    const cached = this.sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex;
    return tokens.length - cached + (generating ? EXPECTED_GENERATED_TOKENS * GENERATED_TOKEN_WORK : 0);
  }

  get totalReusedTokens(): number {
    return this.totalReused;
  }

  decide(tokens: number[], first: number, second: number, signal?: AbortSignal): Promise<BinaryDecision> {
    return this.queue.run(signal, async () => {
      this.checkFits('decide', tokens.length);
      this.checkIds(tokens, [first, second]);
      return binaryDecision(await this.nextDistribution(tokens, signal), first, second);
    });
  }

  decideSequence(
    tokens: number[], first: number, second: number, steps: number, signal?: AbortSignal,
  ): Promise<BinaryDecision[]> {
    return this.queue.run(signal, async () => {
      if (steps <= 0) return [];
      this.checkFits('decideSequence', tokens.length + steps - 1);
      this.checkIds(tokens, [first, second]);
      const decisions = [binaryDecision(await this.nextDistribution(tokens, signal), first, second)];
      while (decisions.length < steps) {
        signal?.throwIfAborted();
        const chosen = decisions[decisions.length - 1].probabilityFirst >= 0.5 ? first : second;
        // One evaluation per step: the chosen token, asking for the next distribution.
        const [output] = await this.sequence.controlledEvaluate([[chosen as Token, PROBABILITIES]]);
        decisions.push(binaryDecision(probabilitiesOf(output), first, second));
      }
      return decisions;
    });
  }

  logLikelihood(tokens: number[], target: number[], signal?: AbortSignal): Promise<number> {
    return this.queue.run(signal, async () => {
      if (target.length === 0) return 0;
      requireTokens(tokens);
      // The last target token is predicted, never evaluated.
      const sequence = [...tokens, ...target.slice(0, -1)];
      this.checkFits('logLikelihood', sequence.length);
      this.checkIds(tokens, target);
      const firstPredicting = tokens.length - 1;
      const reused = await this.alignCache(sequence, firstPredicting);
      const items = sequence.slice(reused).map((token, i): ControlledEvaluateInputItem =>
        reused + i >= firstPredicting ? [token as Token, PROBABILITIES] : (token as Token));
      const outputs = await this.evaluateInChunks(items, signal);
      let sum = 0;
      target.forEach((token, t) => {
        sum += safeLog(probabilitiesOf(outputs[firstPredicting + t - reused]).get(token) ?? 0);
      });
      return sum;
    });
  }

  /**
   * The `count` most probable next tokens after `tokens` that generation may pick (stop and
   * control tokens left out), most probable first, with their ln P over the whole vocabulary.
   */
  topNextTokens(tokens: number[], count: number, signal?: AbortSignal): Promise<Array<{ token: number; logProbability: number }>> {
    return this.queue.run(signal, async () => {
      this.checkFits('topNextTokens', tokens.length);
      this.checkIds(tokens, []);
      const distribution = await this.nextDistribution(tokens, signal);
      // A few spare places for stop tokens among the most probable (EOS often is one).
      return mostProbable(distribution, count + 4)
        .filter(([token]) => !this.hooks.isStopToken(token))
        .slice(0, count)
        .map(([token, probability]) => ({ token, logProbability: safeLog(probability) }));
    });
  }

  generate(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult> {
    const aborted = (): GenerationResult => ({ text: '', tokens: [], stoppedBy: 'aborted' });
    return this.queue.run(signal, () => this.generateNow(tokens, options, signal), aborted);
  }

  async dispose(): Promise<void> {
    this.onDispose();
    await this.queue.run(undefined, async () => {
      if (this.sequence.disposed) return;
      await this.sequence.dispose();
      await this.context.dispose();
    });
  }

  private checkFits(operation: string, positions: number): void {
    checkFits(operation, positions, this.contextSize);
  }

  private checkIds(tokens: number[], others: number[]): void {
    checkTokenIds(tokens, others, this.vocabularySize);
  }

  /**
   * Keep the cached prefix shared with `tokens`, but never past `firstNeededOutput`: the
   * distribution after a token exists only while evaluating it, so that token is re-fed.
   * Returns the number of reused tokens.
   */
  private async alignCache(tokens: number[], firstNeededOutput: number): Promise<number> {
    const reused = this.hooks.shiftedReuseMinTokens
      ? await this.keepShiftedRuns(tokens, firstNeededOutput, this.hooks.shiftedReuseMinTokens)
      : await this.keepCommonPrefix(tokens, firstNeededOutput);
    this.lastReused = reused;
    this.totalReused += reused;
    return reused;
  }

  private async keepCommonPrefix(tokens: number[], firstNeededOutput: number): Promise<number> {
    const common = this.sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex;
    const reused = Math.min(common, firstNeededOutput);
    const end = this.sequence.nextTokenIndex;
    if (end > reused) await this.sequence.eraseContextTokenRanges([{ start: reused, end }]);
    return reused;
  }

  private async keepShiftedRuns(tokens: number[], firstNeededOutput: number, minRun: number): Promise<number> {
    const plan = planShiftedReuse(this.sequence.contextTokens, tokens, firstNeededOutput, minRun);
    if (plan.erase.length > 0) await this.sequence.eraseContextTokenRanges(plan.erase);
    // llama.cpp cannot always shift (it then re-reads what it had to drop); trust only what it kept.
    const kept = Math.min(this.sequence.compareContextTokens(tokens as Token[]).firstDifferentIndex, plan.reused);
    const end = this.sequence.nextTokenIndex;
    if (end > kept) await this.sequence.eraseContextTokenRanges([{ start: kept, end }]);
    return kept;
  }

  /** The full-vocabulary distribution of the token after `tokens`. */
  private async nextDistribution(tokens: number[], signal?: AbortSignal): Promise<Map<number, number>> {
    requireTokens(tokens);
    const last = tokens.length - 1;
    const reused = await this.alignCache(tokens, last);
    const items: ControlledEvaluateInputItem[] = tokens.slice(reused, last).map((t) => t as Token);
    items.push([tokens[last] as Token, PROBABILITIES]);
    const outputs = await this.evaluateInChunks(items, signal);
    return probabilitiesOf(outputs[outputs.length - 1]);
  }

  /** Evaluate in chunks, checking the signal between them, so a long prompt can be abandoned. */
  private async evaluateInChunks(
    items: ControlledEvaluateInputItem[], signal?: AbortSignal,
  ): Promise<Array<ControlledEvaluateIndexOutput | undefined>> {
    const outputs: Array<ControlledEvaluateIndexOutput | undefined> = [];
    for (let start = 0; start < items.length;) {
      if (start > 0) await this.pausePoint?.(items.length - start + this.workAfterPrompt);
      signal?.throwIfAborted();
      const chunk = items.slice(start, start + this.chunkTokens);
      const began = performance.now();
      const results = await this.sequence.controlledEvaluate(chunk);
      this.learnChunkSize(chunk.length, performance.now() - began);
      for (let i = 0; i < chunk.length; i++) outputs.push(results[i]);
      start += chunk.length;
    }
    return outputs;
  }

  private learnChunkSize(tokens: number, ms: number): void {
    this.chunkTokens = nextChunkTokens(tokens, ms) ?? this.chunkTokens;
  }

  private async generateNow(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult> {
    requireTokens(tokens);
    // Generation stops where the context ends: the budgets reserve maxTokens after the prompt,
    // but not the cursor echo (up to 48 tokens), which can take a few of them. A prompt that
    // leaves no room at all is a budgeting bug, and rejects.
    this.checkFits('generate', tokens.length + 1);
    const maxTokens = Math.min(Math.max(0, Math.floor(options.maxTokens)), this.contextSize - tokens.length);
    if (maxTokens === 0) return { text: '', tokens: [], stoppedBy: 'max-tokens' };
    this.checkIds(tokens, []);
    const last = tokens.length - 1;
    const reused = await this.alignCache(tokens, last);
    this.workAfterPrompt = EXPECTED_GENERATED_TOKENS * GENERATED_TOKEN_WORK;
    try {
      await this.evaluateInChunks(tokens.slice(reused, last).map((t) => t as Token), signal);
    } catch (error) {
      if (signal?.aborted) return { text: '', tokens: [], stoppedBy: 'aborted' };
      throw error;
    } finally {
      this.workAfterPrompt = 0;
    }
    return this.decodeGreedy(tokens, maxTokens, options, signal);
  }

  /**
   * Greedy decoding from the prompt's last token, applying the stop rules after each token, with
   * a penalty on tokens the completion itself keeps repeating ({@link loopPenalty}).
   */
  private async decodeGreedy(
    prompt: number[], maxTokens: number, options: GenerationOptions, signal?: AbortSignal,
  ): Promise<GenerationResult> {
    const generated: number[] = [];
    const context = prompt.slice(-DETOKENIZE_CONTEXT);
    let stoppedBy: GenerationResult['stoppedBy'] = 'max-tokens';
    const stream = this.sequence.evaluate([prompt[prompt.length - 1] as Token], {
      temperature: 0, yieldEogToken: true, repeatPenalty: loopPenalty(generated, options.loopPenalty ?? LOOP_FREQUENCY_PENALTY),
      ...(this.hooks.generationBias ? { tokenBias: this.hooks.generationBias } : {}),
    });
    for await (const token of stream) {
      if (this.hooks.isStopToken(token)) {
        stoppedBy = 'eos';
        break;
      }
      generated.push(token);
      const text = this.hooks.detokenize(generated, context);
      const stop = findTextStop(text, options);
      if (stop) return cutAt(generated, this.textOf(generated, context), text.slice(0, stop.index), stop.reason);
      if (generated.length >= maxTokens) break;
      const left = Math.max(1, Math.min(maxTokens, EXPECTED_GENERATED_TOKENS) - generated.length) * GENERATED_TOKEN_WORK;
      if (signal?.aborted || !(await this.paused(left))) {
        stoppedBy = 'aborted';
        break;
      }
    }
    return withoutPartialCharacter(generated, this.textOf(generated, context), stoppedBy);
  }

  /** Lets a shared evaluator run other sessions here (see setPausePoint); false when cancelled meanwhile. */
  private async paused(remainingWork: number): Promise<boolean> {
    try {
      await this.pausePoint?.(remainingWork);
      return true;
    } catch {
      return false;
    }
  }

  /** Text of the first `count` generated tokens, after the prompt's last few. */
  private textOf(generated: readonly number[], context: number[]): (count: number) => string {
    return (count) => this.hooks.detokenize(generated.slice(0, count), context);
  }
}

/**
 * The next prompt chunk's size after `tokens` were read in `ms`: what takes about PROMPT_CHUNK_MS
 * at that speed, in multiples of 32 from 32 to 256; undefined after a short tail chunk, which
 * says little about the speed of a full one.
 */
export function nextChunkTokens(tokens: number, ms: number): number | undefined {
  if (tokens < PROMPT_CHUNK_MIN || !(ms > 0)) return undefined;
  const fitting = Math.floor((tokens / ms) * PROMPT_CHUNK_MS / PROMPT_CHUNK_MIN) * PROMPT_CHUNK_MIN;
  return Math.min(PROMPT_CHUNK_MAX, Math.max(PROMPT_CHUNK_MIN, fitting));
}

function requireTokens(tokens: number[]): void {
  // With no token there is no position to predict from; the prompt module always sends some.
  if (tokens.length === 0) throw new RangeError('a model operation needs at least one prompt token');
}

/** The `count` most probable entries, most probable first, in one pass over the vocabulary. */
function mostProbable(distribution: Map<number, number>, count: number): Array<[number, number]> {
  const best: Array<[number, number]> = [];
  for (const entry of distribution) {
    if (best.length === count && entry[1] <= best[count - 1][1]) continue;
    let at = best.length;
    while (at > 0 && best[at - 1][1] < entry[1]) at--;
    best.splice(at, 0, entry);
    if (best.length > count) best.pop();
  }
  return best;
}

function probabilitiesOf(output: ControlledEvaluateIndexOutput | undefined): Map<number, number> {
  const probabilities = output?.next.probabilities;
  if (!probabilities) throw new Error('llama.cpp returned no probabilities for a requested position');
  return probabilities as Map<number, number>;
}

/**
 * Small models decode greedily into loops (`"year", "year", "year", …`). Each time a token
 * already occurs among the completion's last 64 tokens its logit drops by 0.3 per occurrence:
 * a first repeat costs little, a tenth one 3 nats. Only generated tokens count, never the
 * prompt's, so copying an identifier from the context or the retrieved chunks is not penalized.
 */
export const LOOP_FREQUENCY_PENALTY = 0.3;

function loopPenalty(generated: readonly number[], frequencyPenalty: number): LlamaContextSequenceRepeatPenalty | undefined {
  if (!(frequencyPenalty > 0)) return undefined;
  return { punishTokens: () => generated.slice(-64) as Token[], penalty: 1, frequencyPenalty };
}
