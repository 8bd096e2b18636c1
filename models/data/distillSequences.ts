/**
 * RepoShapley's distillation formats (§3.4) from one labeled instance, through the server's one
 * definition of the sequences (prompt/sequences.ts):
 *   selection      (F1)  <PFX>Xp<SFX>Xs<NEED>Pack(Xcc)<SELECT> q_1 … q_K <DONE>
 *   generation     (F2)  <PFX>Xp<SFX>Xs<NEED>Pack(C_S*)<DONE><MID> Y <EOT>
 *   no-retrieval         <PFX>Xp<SFX>Xs<DONE><MID> Y <EOT>          (r* = DONE)
 * Loss classes (models/train/data.py): 2 on the retrieval decision r* (the token right after
 * Xs) and on q_1..q_K, weighted λ_R = λ_S = 2 by the trainer; 1 on Y, and on its <EOT> for block
 * targets only (the pretraining data's rule, trainingSequences.ts isEndOfTextSupervised); 0 on
 * everything the model is given (context, chunks, and the delimiters inference appends itself).
 *
 * The label source is chosen per instance by {@link distillLabel}: the paper's verified
 * Shapley coalition, or one of the ablations of Table 2 / Appendix C.
 */
import type { SpecialTokenIds } from '../../server/src/model/completionModel.js';
import type { TokenizedText } from '../../server/src/prompt/budget.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import {
  formatOneSegments, generationSegments, inFileSegments, noRetrievalSegments, withTarget, type PromptPlan,
} from '../../server/src/prompt/sequences.js';
import type { LabelRecord } from '../labeling/labelRecord.js';
import { keepLabels, labelInstance, type LabelThresholds } from '../labeling/labels.js';
import { maskOf } from '../labeling/shapley.js';
import type { TargetKind } from './targets.js';
import { isEndOfTextSupervised } from './trainingSequences.js';

/** Loss-weight classes of the shard masks. */
export const LOSS_CLASS = { context: 0, completion: 1, control: 2 } as const;

export type DistillFormat = 'selection' | 'generation' | 'no-retrieval';

export interface DistillSequence {
  format: DistillFormat;
  ids: number[];
  mask: Uint8Array;
}

/**
 * Where KEEP/DROP and NEED/DONE come from:
 * - `shapley`: the paper: S* verified by decoding, r* by its ES gain over ∅ (labels.ts).
 * - `delta` (Δ-only, CODEFILTER-like): keep every chunk that alone raises the likelihood of Y
 *   (Δ_i > 0); NEED when any does. No verification, no discards.
 * - `unverified` (without post-verification): keep the chunks with positive Shapley value of
 *   the surrogate game, NEED when any; the decoded pool is ignored. Under the paper's surrogate
 *   v(S) = σ(β·ΣΔ) − σ(0), every marginal contribution of chunk i has the sign of Δ_i, so this
 *   keeps exactly the chunks `delta` keeps: without verification the Shapley game adds nothing
 *   to the selection, which is the point of the paper's post-verification. Kept as its own
 *   name because the paper's ablation table has both rows.
 */
export type LabelSource = 'shapley' | 'delta' | 'unverified';
export const LABEL_SOURCES: readonly LabelSource[] = ['shapley', 'delta', 'unverified'];

/** r* and the keep decision per packed candidate, or undefined when the instance is not used. */
export interface DistillLabel {
  retrieval: 'need' | 'done';
  keep: boolean[];
}

export function distillLabel(record: LabelRecord, source: LabelSource, thresholds?: LabelThresholds): DistillLabel | undefined {
  switch (source) {
    case 'shapley':
      if (thresholds) return relabeled(record, thresholds);
      if (record.discarded !== undefined || record.retrieval === undefined) return undefined;
      return { retrieval: record.retrieval, keep: record.keep };
    case 'delta':
      return fromKeep(record.deltas.map((delta) => delta > 0));
    case 'unverified':
      return fromKeep(record.phi.map((value) => value > 0));
  }
}

/**
 * The Shapley label at other thresholds (τ_es, ε) than the labeler's: S*, r* and KEEP/DROP by the
 * labeler's own rules (labels.ts) from the record's decoded pool and ∅, so no decoding is redone.
 * A weak generator rarely reaches the labeler's τ_es; this is how a lower one is tried.
 */
export function relabeled(record: LabelRecord, thresholds: LabelThresholds): DistillLabel | undefined {
  const count = record.candidates.length;
  const coalition = (v: { members?: number[]; completion: string; es: number; em: boolean }) => ({
    mask: maskOf(v.members ?? []), completion: v.completion, es: v.es, em: v.em,
  });
  const label = labelInstance(record.pool.map(coalition), coalition(record.empty), thresholds);
  if (label.kind === 'discard') return undefined;
  return { retrieval: label.retrieval, keep: keepLabels(label.best.mask, count) };
}

function fromKeep(keep: boolean[]): DistillLabel {
  return { retrieval: keep.some(Boolean) ? 'need' : 'done', keep };
}

/**
 * The sequences of one instance: selection and generation for r* = NEED (both formats per
 * instance, the paper's option (i), so the fixed mix is one of each), no-retrieval for DONE.
 */
export function distillSequences(
  plan: PromptPlan, y: TokenizedText, kind: TargetKind, label: DistillLabel, special: SpecialTokenIds,
): DistillSequence[] {
  if (label.keep.length !== plan.packed.length) {
    throw new RangeError(`${label.keep.length} keep labels for ${plan.packed.length} packed candidates`);
  }
  const decisionAt = toTokenIds(inFileSegments(plan), special).length;
  const completion = { yTokens: y.ids.length, endSupervised: isEndOfTextSupervised(kind) };
  if (label.retrieval === 'done') {
    const ids = toTokenIds(withTarget(noRetrievalSegments(plan), y), special);
    return [{ format: 'no-retrieval', ids, mask: completionMask(ids.length, completion, [decisionAt]) }];
  }
  const selection = toTokenIds(formatOneSegments(plan, label.keep), special);
  // q_1..q_K sit just before the closing <DONE>.
  const decisions = label.keep.map((_, i) => selection.length - 1 - label.keep.length + i);
  const kept = keptIndices(label.keep);
  const generation = toTokenIds(withTarget(generationSegments(plan, kept), y), special);
  return [
    { format: 'selection', ids: selection, mask: completionMask(selection.length, undefined, [decisionAt, ...decisions]) },
    { format: 'generation', ids: generation, mask: completionMask(generation.length, completion, [decisionAt]) },
  ];
}

/** The indices of the packed candidates a label keeps (the `kept` of layout.generation). */
export function keptIndices(keep: readonly boolean[]): number[] {
  return keep.flatMap((k, i) => (k ? [i] : []));
}

/** How a sequence ends: Y's tokens, then an <EOT> that is a target or only context. */
interface CompletionEnd {
  yTokens: number;
  endSupervised: boolean;
}

/** Class 1 on Y (and its <EOT> when supervised) at the end, class 2 at `controlPositions`, 0 elsewhere. */
function completionMask(length: number, completion: CompletionEnd | undefined, controlPositions: readonly number[]): Uint8Array {
  const mask = new Uint8Array(length);
  if (completion) {
    const end = completion.endSupervised ? length : length - 1;
    mask.fill(LOSS_CLASS.completion, length - 1 - completion.yTokens, end);
  }
  for (const position of controlPositions) mask[position] = LOSS_CLASS.control;
  return mask;
}
