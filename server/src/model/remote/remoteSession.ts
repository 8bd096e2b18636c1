/**
 * A ModelSession whose forward passes run in a llama-server slot. Each operation is one or a few
 * `/completion` requests with the whole prompt as token ids and `cache_prompt`, so the server
 * evaluates only what its slot does not already hold, as the local session does.
 *
 * - decide: both tokens biased by the same +100 (their logit difference kept, both on top),
 *   `top_k` 2, temperature 1: the post-sampling probabilities are the two-token softmax.
 * - decideSequence: one such request per step, the chosen token appended (a request's own
 *   sampling is random at temperature 1, so the client chooses).
 * - generate: a greedy stream with the top log-probabilities of each token; our loop penalty and
 *   stop rules are applied here (greedyChoice.ts, stopRules.ts), and a penalty that changes a
 *   token ends the stream and continues from the corrected prefix.
 * - logLikelihood is not offered: no endpoint scores given tokens, and the labeler runs locally.
 */
import {
  type BinaryDecision,
  type GenerationOptions,
  type GenerationResult,
  type ModelSession,
} from '../completionModel.js';
import { LOOP_FREQUENCY_PENALTY } from '../llama/llamaSession.js';
import { cutAt, withoutPartialCharacter } from '../generatedText.js';
import { checkFits, checkTokenIds } from '../sessionChecks.js';
import { SerialQueue } from '../llama/serialQueue.js';
import { findTextStop } from '../llama/stopRules.js';
import { penalizedGreedy, type TokenChoice } from './greedyChoice.js';
import { ModelServerError, type LlamaServerApi } from './llamaServerApi.js';

/** Top log-probabilities asked per generated token; enough that a penalty's winner is listed. */
const TOP_PROBS = 8;
/** Asked again at a position where a penalty pushed every listed token below the list's end. */
const WIDE_PROBS = 256;
/**
 * llama-server parses every streamed text as a chat message (reasoning blocks, tool calls) and
 * fails a stream whose text that parser rejects; completions are plain code.
 */
const PLAIN_TEXT = { reasoning_format: 'none', parse_tool_calls: false } as const;
/** Added to both tokens of a decision: above any logit gap between them and the best token. */
const DECISION_BIAS = 100;

/** One listed token in a llama-server answer. */
interface ServerToken {
  id: number;
  bytes: number[];
  logprob?: number;
  prob?: number;
}

interface ServerProbabilities extends ServerToken {
  top_logprobs?: ServerToken[];
  top_probs?: ServerToken[];
}

/** The fields of a `/completion` answer (or stream event) the adapter reads. */
export interface CompletionAnswer {
  stop?: boolean;
  stop_type?: 'none' | 'eos' | 'limit' | 'word';
  completion_probabilities?: ServerProbabilities[];
  timings?: { cache_n?: number; prompt_ms?: number; predicted_ms?: number };
}

/** What a session needs from its model. */
export interface RemoteSessionHooks {
  /** End of generation: the model's end-of-text and control tokens (control tokens also print as no bytes). */
  isStopToken(id: number, bytes: readonly number[]): boolean;
  /** A token the server generated, with its bytes (the model's detokenize() answers from these). */
  sawToken(id: number, bytes: readonly number[]): void;
  /** Tokens generation never picks (the model's RepoShapley control tokens, read only by decide()). */
  neverGenerate?: readonly number[];
}

export class RemoteSession implements ModelSession {
  private readonly queue = new SerialQueue();
  private lastReused = 0;
  private totalReused = 0;
  private disposed = false;
  /** Milliseconds the server reported computing (prompt + generation) over this session's requests. */
  serverComputeMs = 0;

  constructor(
    private readonly api: LlamaServerApi,
    /** The server slot this session keeps its cache in; undefined lets the server pick. */
    private readonly slot: number | undefined,
    private readonly contextSize: number,
    private readonly vocabularySize: number,
    private readonly hooks: RemoteSessionHooks,
    private readonly onDispose: () => void = () => undefined,
  ) {}

  get lastReusedTokens(): number {
    return this.lastReused;
  }

  get totalReusedTokens(): number {
    return this.totalReused;
  }

  decide(tokens: number[], first: number, second: number, signal?: AbortSignal): Promise<BinaryDecision> {
    return this.queue.run(signal, async () => {
      this.checkFits('decide', tokens.length);
      this.checkIds(tokens, [first, second]);
      const decision = await this.decideAfter(tokens, first, second, signal);
      this.countReused(decision.reused);
      return decision.decision;
    });
  }

  decideSequence(tokens: number[], first: number, second: number, steps: number, signal?: AbortSignal): Promise<BinaryDecision[]> {
    return this.queue.run(signal, async () => {
      if (steps <= 0) return [];
      this.checkFits('decideSequence', tokens.length + steps - 1);
      this.checkIds(tokens, [first, second]);
      const prompt = [...tokens];
      const decisions: BinaryDecision[] = [];
      let reused = 0;
      while (decisions.length < steps) {
        signal?.throwIfAborted();
        const step = await this.decideAfter(prompt, first, second, signal);
        if (decisions.length === 0) reused = step.reused;
        decisions.push(step.decision);
        prompt.push(step.decision.probabilityFirst >= 0.5 ? first : second);
      }
      this.countReused(reused);
      return decisions;
    });
  }

  logLikelihood(): Promise<number> {
    return Promise.reject(new Error(
      'teacher-forced log-likelihood is not available through llama-server (no endpoint scores given tokens); ' +
      'the labeler and the training tools load the model locally',
    ));
  }

  generate(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult> {
    const aborted = (): GenerationResult => ({ text: '', tokens: [], stoppedBy: 'aborted' });
    return this.queue.run(signal, () => this.generateNow(tokens, options, signal), aborted);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.onDispose();
    await this.queue.run(undefined, async () => undefined);
  }

  private async decideAfter(
    tokens: number[], first: number, second: number, signal?: AbortSignal,
  ): Promise<{ decision: BinaryDecision; reused: number }> {
    const answer = await this.api.postJson<CompletionAnswer>('/completion', {
      ...this.common(tokens), n_predict: 1, temperature: 1, samplers: ['top_k', 'temperature'], top_k: 2,
      n_probs: 2, post_sampling_probs: true, logit_bias: [[first, DECISION_BIAS], [second, DECISION_BIAS]],
    }, signal);
    this.serverComputeMs += computeMs(answer);
    const listed = answer.completion_probabilities?.[0]?.top_probs ?? [];
    const probability = (id: number) => listed.find((t) => t.id === id)?.prob;
    const p1 = probability(first);
    const p2 = probability(second);
    if (p1 === undefined || p2 === undefined) {
      throw new ModelServerError('protocol', `the model server did not report both tokens ${first} and ${second} of a decision`);
    }
    const logitFirst = Math.log(p1);
    const logitSecond = Math.log(p2);
    return {
      decision: { probabilityFirst: p1 / (p1 + p2), logitFirst, logitSecond },
      reused: answer.timings?.cache_n ?? 0,
    };
  }

  private async generateNow(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult> {
    if (tokens.length === 0) throw new RangeError('a model operation needs at least one prompt token');
    this.checkFits('generate', tokens.length + 1);
    this.checkIds(tokens, []);
    const maxTokens = Math.min(Math.max(0, Math.floor(options.maxTokens)), this.contextSize - tokens.length);
    if (maxTokens === 0) return { text: '', tokens: [], stoppedBy: 'max-tokens' };
    const decoding = new GreedyDecoding(options, this.hooks, maxTokens, (ms) => (this.serverComputeMs += ms));
    let firstRequest = true;
    let wide = false;
    try {
      while (!decoding.finished) {
        const prompt = [...tokens, ...decoding.generated];
        const stream: AsyncGenerator<CompletionAnswer> = this.api.stream<CompletionAnswer>('/completion', {
          ...this.common(prompt), n_predict: wide ? 1 : maxTokens - decoding.generated.length,
          temperature: 0, samplers: ['temperature'], n_probs: wide ? WIDE_PROBS : TOP_PROBS, ...PLAIN_TEXT,
          ...(this.hooks.neverGenerate?.length ? { logit_bias: this.hooks.neverGenerate.map((id) => [id, false]) } : {}),
          // Timings with every token: a stream closed at a stop rule never gets to the final ones.
          timings_per_token: true,
        }, signal);
        const next: FollowResult = await decoding.follow(stream, wide, signal).catch((error: unknown): FollowResult => {
          if (!isUnparsableOutput(error)) throw error;
          // The next token would make the text invalid UTF-8, which llama-server refuses to
          // stream; the local adapter would print it as U+FFFD. The completion ends before it.
          decoding.outcome = decoding.result('eos');
          return {};
        });
        if (firstRequest) this.countReused(next.reused ?? 0);
        firstRequest = false;
        wide = next.restart === 'wide';
      }
    } catch (error) {
      if (signal?.aborted) return decoding.result('aborted');
      throw error;
    }
    return decoding.outcome!;
  }

  private common(prompt: number[]): Record<string, unknown> {
    return { prompt, cache_prompt: true, ...(this.slot === undefined ? {} : { id_slot: this.slot }) };
  }

  private countReused(reused: number): void {
    this.lastReused = reused;
    this.totalReused += reused;
  }

  private checkFits(operation: string, positions: number): void {
    checkFits(operation, positions, this.contextSize);
  }

  private checkIds(tokens: number[], others: number[]): void {
    checkTokenIds(tokens, others, this.vocabularySize);
  }
}

/** How one streamed request ended for the decoding: done, or start again (and how). */
interface FollowResult {
  restart?: 'corrected' | 'wide' | 'continue';
  reused?: number;
}

/**
 * The state of one greedy generation across the requests it takes: the tokens, their bytes, the
 * stop rules, and the outcome once one applies.
 */
class GreedyDecoding {
  readonly generated: number[] = [];
  private readonly pieces: number[][] = [];
  private readonly penalty: number;
  outcome?: GenerationResult;

  constructor(
    private readonly options: GenerationOptions, private readonly hooks: RemoteSessionHooks, private readonly maxTokens: number,
    private readonly addComputeMs: (ms: number) => void,
  ) {
    this.penalty = options.loopPenalty ?? LOOP_FREQUENCY_PENALTY;
  }

  get finished(): boolean {
    return this.outcome !== undefined;
  }

  /** Take tokens from one stream until a stop, a corrected token or the stream's end. */
  async follow(stream: AsyncGenerator<CompletionAnswer>, wide: boolean, signal?: AbortSignal): Promise<FollowResult> {
    // Each event's timings are the request's so far; the last one seen counts.
    let timings: CompletionAnswer | undefined;
    const reused = () => timings?.timings?.cache_n;
    const before = this.generated.length;
    try {
      for await (const event of stream) {
        if (event.timings) timings = event;
        for (const listed of event.completion_probabilities ?? []) {
          const step = this.take(listed, wide);
          if (step !== 'next') return { restart: step === 'done' ? undefined : step, reused: reused() };
          if (signal?.aborted) {
            this.outcome = this.result('aborted');
            return { reused: reused() };
          }
        }
        if (event.stop) {
          if (event.stop_type === 'eos') this.outcome = this.result('eos');
          // A stream that ended for another reason without a token (the server's context is full) ends the completion.
          else if (this.generated.length >= this.maxTokens || this.generated.length === before) this.outcome = this.result('max-tokens');
          return { restart: this.outcome ? undefined : 'continue', reused: reused() };
        }
      }
    } finally {
      // Leaving early closes the connection, and llama-server stops that generation.
      await stream.return(undefined);
      if (timings) this.addComputeMs(computeMs(timings));
    }
    if (!this.outcome) this.outcome = this.result('max-tokens');
    return { reused: reused() };
  }

  /** One streamed token: ours or a corrected one, then the stop rules. */
  private take(listed: ServerProbabilities, wide: boolean): 'next' | 'done' | 'corrected' | 'wide' {
    const top: TokenChoice[] = (listed.top_logprobs ?? []).map((t) => ({ id: t.id, logprob: t.logprob ?? -Infinity }));
    const verdict = penalizedGreedy(listed.id, top, this.generated, this.penalty);
    // Asked wide already: the best listed token is taken (an exact tie with an unlisted one is all that is left).
    if (verdict.kind === 'unsure' && !wide) return 'wide';
    const corrected = verdict.kind === 'other' ? listed.top_logprobs!.find((t) => t.id === verdict.id)! : undefined;
    const token = corrected ?? listed;
    this.hooks.sawToken(token.id, token.bytes);
    if (this.hooks.isStopToken(token.id, token.bytes)) {
      this.outcome = this.result('eos');
      return 'done';
    }
    this.generated.push(token.id);
    this.pieces.push(token.bytes);
    const text = this.text(this.pieces);
    const stop = findTextStop(text, this.options);
    if (stop) {
      this.outcome = cutAt(this.generated, this.textOf, text.slice(0, stop.index), stop.reason);
      return 'done';
    }
    if (this.generated.length >= this.maxTokens) {
      this.outcome = this.result('max-tokens');
      return 'done';
    }
    return corrected || wide ? 'corrected' : 'next';
  }

  /** The tokens so far, less a cut multi-byte character at the end (as the local adapter does). */
  result(stoppedBy: GenerationResult['stoppedBy']): GenerationResult {
    return withoutPartialCharacter(this.generated, this.textOf, stoppedBy);
  }

  /** Text of the first `count` generated tokens. */
  private readonly textOf = (count: number): string => this.text(this.pieces.slice(0, count));

  private text(pieces: readonly number[][]): string {
    return utf8.decode(Uint8Array.from(pieces.flat()));
  }
}

const utf8 = new TextDecoder('utf-8');

function computeMs(answer: CompletionAnswer): number {
  return (answer.timings?.prompt_ms ?? 0) + (answer.timings?.predicted_ms ?? 0);
}

/** llama-server's error for generated bytes that are not UTF-8 (its chat parser reads every stream). */
function isUnparsableOutput(error: unknown): boolean {
  return error instanceof ModelServerError && /does not match the expected .* format/.test(error.message);
}
