/** The contract between the completion pipeline and a context-control policy. */
import type { GenerationOptions, GenerationResult, ModelSession, SpecialTokenIds } from '../model/completionModel.js';
import type { PackedChunk } from '../prompt/budget.js';
import type { TriggerSoftmax } from '../model/reposhapleyKeys.js';
import type { PromptLayout } from '../prompt/layouts.js';
import type { Segment } from '../prompt/segments.js';
import type { PromptPlan } from '../prompt/sequences.js';
import type { Candidate } from '../retrieval/types.js';
import type { ScopedDecisions } from './decisionCache.js';

/** Policies that actually run; `auto` resolves to one of them. */
export type EffectivePolicy = 'none' | 'full' | 'reposhapley';

/** Everything a policy may use. Retrieval is lazy: a policy that never needs it never pays for it. */
export interface PolicyContext {
  /** The model's layout, chosen once when it loaded (prompt/layouts.ts). */
  layout: PromptLayout;
  session: ModelSession;
  special: SpecialTokenIds;
  /** The in-file plan (prefix and suffix fitted; nothing packed yet). */
  inFile: PromptPlan;
  /** Retrieve top-K candidates and pack those that fit the chunk budget (memoized). */
  retrieveAndPack(): Promise<{ candidates: Candidate[]; packed: PackedChunk[] }>;
  toIds(segments: readonly Segment[]): number[];
  generation: GenerationOptions;
  /** Threshold t_c on P(<NEED>) (Algorithm 1 line 3). */
  needThreshold: number;
  /** How P(<NEED>) is read: over {NEED, DONE} (the paper) or over the whole vocabulary (the model's info). */
  triggerSoftmax: TriggerSoftmax;
  /** Decisions already made on this line (decisionCache.ts); absent: decide every time. */
  decisions?: ScopedDecisions;
  signal: AbortSignal;
}

/** What a policy decided and produced. */
export interface PolicyResult {
  decision: 'need' | 'done';
  needProbability?: number;
  candidates: Candidate[];
  packed: PackedChunk[];
  /** Indexes into `packed` of the chunks the generation saw. */
  kept: number[];
  /** P(<KEEP>) per packed chunk, when the model selected. */
  keepProbabilities?: number[];
  generated: GenerationResult;
  /** The final generation prompt (rendered into traces on request). */
  prompt: Segment[];
  /** Tokens of the final generation prompt. */
  promptTokens: number;
  /** Wall time of the decision and selection steps (ms). */
  decisionMs: number;
  selectionMs: number;
  generationMs: number;
}

/** A context-control policy. */
export interface ContextPolicy {
  readonly name: EffectivePolicy;
  run(context: PolicyContext): Promise<PolicyResult>;
}
