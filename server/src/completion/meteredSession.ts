/**
 * What a completion cost the model, by stage: the tokens each call evaluated (those read back
 * from the KV cache are not counted), attributed to the trigger (`<NEED>`/`<DONE>`), the selection
 * (`<KEEP>`/`<DROP>`), the generation prompt and the generated tokens. A context-control policy
 * earns its place only if these add up to less than what the context it leaves out would cost.
 */
import type { CompletionTrace } from '../../../shared/messages.js';
import type { BinaryDecision, GenerationOptions, GenerationResult, ModelSession, SpecialTokenIds } from '../model/completionModel.js';

export type EvaluatedTokens = NonNullable<CompletionTrace['tokens']['evaluated']>;

/** A view of the engine's session for one completion that counts what each call evaluated. */
export class MeteredSession implements ModelSession {
  readonly evaluated: EvaluatedTokens = { trigger: 0, selection: 0, prompt: 0, generated: 0, reused: 0 };

  private readonly sharedWaitAtStart: number | undefined;

  constructor(private readonly inner: ModelSession, private readonly special: SpecialTokenIds) {
    this.sharedWaitAtStart = inner.totalSharedWaitMs;
  }

  /** How long this completion's calls waited for other servers' evaluations (undefined: not shared). */
  get sharedWaitMs(): number | undefined {
    const now = this.inner.totalSharedWaitMs;
    return now === undefined || this.sharedWaitAtStart === undefined ? undefined : now - this.sharedWaitAtStart;
  }

  get totalSharedWaitMs(): number | undefined {
    return this.inner.totalSharedWaitMs;
  }

  get lastReusedTokens(): number {
    return this.inner.lastReusedTokens;
  }

  get totalReusedTokens(): number {
    return this.inner.totalReusedTokens;
  }

  async decide(tokens: number[], first: number, second: number, signal?: AbortSignal): Promise<BinaryDecision> {
    const decision = await this.inner.decide(tokens, first, second, signal);
    this.count(first === this.special.need ? 'trigger' : 'selection', tokens.length);
    return decision;
  }

  async decideSequence(tokens: number[], first: number, second: number, steps: number, signal?: AbortSignal): Promise<BinaryDecision[]> {
    const decisions = await this.inner.decideSequence(tokens, first, second, steps, signal);
    // The prompt once, then each chosen token but the last.
    this.count('selection', tokens.length, Math.max(0, decisions.length - 1));
    return decisions;
  }

  async generate(tokens: number[], options: GenerationOptions, signal?: AbortSignal): Promise<GenerationResult> {
    const result = await this.inner.generate(tokens, options, signal);
    this.count('prompt', tokens.length);
    this.evaluated.generated += result.tokens.length;
    return result;
  }

  logLikelihood(tokens: number[], target: number[], signal?: AbortSignal): Promise<number> {
    return this.inner.logLikelihood(tokens, target, signal);
  }

  /** The engine's session outlives the completion: nothing to dispose here. */
  async dispose(): Promise<void> {}

  private count(stage: 'trigger' | 'selection' | 'prompt', promptLength: number, extra = 0): void {
    const reused = Math.min(this.inner.lastReusedTokens, promptLength);
    this.evaluated[stage] += promptLength - reused + extra;
    this.evaluated.reused += reused;
  }
}
