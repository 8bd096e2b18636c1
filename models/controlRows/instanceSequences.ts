/**
 * One labeled instance as the token sequences its control decisions are made in (issue 20),
 * rebuilt exactly as it was labeled and prompted by the layout's control format
 * (prompt/layouts.ts), teacher-forced with the labels. Both trainers read these: the output rows
 * through the frozen states extractFeatures takes at the decision positions, the GPU fine-tune
 * (exportSequences, models/train/control_finetune.py) through the tokens themselves.
 */
import type { CompletionModel } from '../../server/src/model/completionModel.js';
import type { PromptLayout } from '../../server/src/prompt/layouts.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { distillLabel, keptIndices, type DistillLabel, type LabelSource } from '../data/distillSequences.js';
import type { openRepository } from '../data/repositoryTools.js';
import type { PromptSettings } from '../data/trainingSequences.js';
import { DEFAULT_CHUNKSHAPLEY_OPTIONS } from '../labeling/chunkShapley.js';
import type { LabelRecord } from '../labeling/labelRecord.js';
import { rebuildInstance } from '../labeling/rebuildInstance.js';

/** What an instance's label says, beside its sequences. */
export interface InstanceFields {
  id: string;
  repository: string;
  split: 'train' | 'val';
  kind: string;
  retrieval: 'need' | 'done';
  keep: boolean[];
  /** ES of ∅, of S* and of every candidate (Full-Retrieve) from the labels' decodes. */
  esEmpty: number;
  esBest?: number;
  esFull?: number;
  /**
   * The identifiers of Y that only a packed candidate holds (trainingSequences.evidenceOnlyIdentifiers);
   * written by taskSequences, where they pick the instances a model can complete only by copying.
   */
  evidenceOnly?: string[];
}

/**
 * trigger     the trigger prompt; its last position decides r* (<NEED>/<DONE>)            L_R
 * generation  what the no-retrieval generation prompt adds to the trigger (often nothing);
 *             then Y, teacher-forced                                                      L_Y
 * end         the token that closes the middle after Y (the layout's end of text): the
 *             fine-tune's L_Y ends with it, so the model learns where a completion stops
 * evidence    the generation prompt that sees the verified coalition S* (NEED instances that
 *             keep a candidate): the paper's F2 reads Y after X_S*, so a fine-tune that takes
 *             its L_Y there (control_finetune.py --completion-after evidence) learns to use
 *             the evidence the selection keeps, as the server prompts with it
 * selection   the steps after the trigger (NEED instances with candidates): step 0 is what
 *             the selection prefix adds to the trigger and candidate 1, step i is q_i* and
 *             candidate i + 1; the last position of step i decides q_{i+1}*              L_S
 */
export interface InstanceSequences {
  fields: InstanceFields;
  trigger: number[];
  generation: number[];
  y: number[];
  end?: number;
  evidence?: number[];
  selection: number[][];
}

/**
 * What labels the trigger. `verified` is the paper's r*: NEED when the verified coalition S*
 * beats ∅ (only records whose S* reached τ_es have one). `full-helps` asks what a policy without Y
 * can reach: NEED when Full-Retrieve's decode beats ∅'s by ES (a tie is DONE: retrieval then only
 * costs tokens). Every record has both decodes, so it labels all of them, and it is the question
 * the bench's trigger diagnosis asks of P(NEED) (tuneThreshold --diagnose).
 */
export type TriggerTarget = 'verified' | 'full-helps';
export const TRIGGER_TARGETS: readonly TriggerTarget[] = ['verified', 'full-helps'];

/**
 * Which prompt `evidence` is. `verified`: the verified coalition S* (NEED instances that keep a
 * candidate), the paper's F2. `full`: every packed candidate, the `full` policy's prompt, for every
 * record that rebuilds, labeled or not: data for a generation-only fine-tune
 * (control_finetune.py --generation-only), which reads Y alone and needs no Shapley label.
 */
export type EvidencePrompt = 'verified' | 'full';
export const EVIDENCE_PROMPTS: readonly EvidencePrompt[] = ['verified', 'full'];

export interface SequenceOptions {
  source: LabelSource;
  minEs?: number;
  triggerTarget?: TriggerTarget;
  /** False: no selection steps (features for the trigger's rows alone need none). */
  selection?: boolean;
  /** Default `verified`. */
  evidence?: EvidencePrompt;
}

/** NEED when every candidate together decodes better than none (ES); undefined without that decode. */
export function fullRetrieveHelps(record: Pick<LabelRecord, 'candidates' | 'pool' | 'empty'>): 'need' | 'done' | undefined {
  const full = record.pool.find((p) => p.members.length === record.candidates.length);
  if (!full || record.candidates.length === 0) return undefined;
  return full.es > record.empty.es ? 'need' : 'done';
}

export type Repository = Awaited<ReturnType<typeof openRepository>>;

/** The instance's sequences; 'unlabeled' when the label source keeps nothing, 'stale' when it no longer rebuilds. */
export async function instanceSequences(
  record: LabelRecord, repo: Repository, model: CompletionModel, layout: PromptLayout, options: SequenceOptions,
): Promise<InstanceSequences | 'stale' | 'unlabeled'> {
  const thresholds = options.minEs === undefined ? undefined : { ...DEFAULT_CHUNKSHAPLEY_OPTIONS.thresholds, minEs: options.minEs };
  const label = distillLabel(record, options.source, thresholds);
  const retrieval = triggerLabel(record, label, options);
  if (!retrieval) return 'unlabeled';
  const prompt: PromptSettings = {
    contextSize: model.info.contextSize, special: model.info.special, echoLines: model.info.echoLines, layout,
    settings: { ...DEFAULT_SETTINGS, budgets: record.generator?.budgets ?? DEFAULT_SETTINGS.budgets },
  };
  const prepared = await rebuildInstance(record, repo, prompt);
  if (!prepared) return 'stale';
  const ids = (segments: Parameters<typeof toTokenIds>[0]) => toTokenIds(segments, model.info.special);
  const control = layout.control!;
  const trigger = ids(control.trigger(prepared.plan));
  const noRetrieval = ids(layout.generation({ ...prepared.plan, packed: [] }, []));
  if (noRetrieval.length < trigger.length || trigger.some((id, i) => noRetrieval[i] !== id)) {
    throw new Error('the no-retrieval prompt does not continue the trigger prompt: the layout reads them apart (prompt/layouts.ts)');
  }
  // KEEP/DROP are learned where the verified label says NEED, whatever labels the trigger.
  const selection = options.evidence !== 'full' && options.selection !== false && label?.retrieval === 'need' && prepared.plan.packed.length > 0
    ? selectionSteps(control.selection(prepared.plan), trigger.length, label.keep, ids, model)
    : [];
  const kept = evidenceChunks(label, options.evidence ?? 'verified', prepared.plan.packed.length);
  const evidence = kept.length > 0 ? ids(layout.generation(prepared.plan, kept)) : undefined;
  return {
    fields: {
      id: record.id, repository: record.repository, split: record.split, kind: record.kind, retrieval, keep: selection.length > 0 ? label!.keep : [],
      esEmpty: record.empty.es, esBest: record.pool.length > 0 ? Math.max(...record.pool.map((p) => p.es)) : undefined,
      esFull: record.pool.find((p) => p.members.length === record.candidates.length)?.es,
    },
    trigger, generation: noRetrieval.slice(trigger.length), y: prepared.y.ids, end: model.info.special.endOfText,
    ...(evidence ? { evidence } : {}), selection,
  };
}

/**
 * What labels the trigger (SequenceOptions.triggerTarget), undefined for a record the source keeps
 * nothing of; with `evidence: full` every record has one, since Y after every candidate needs no
 * label: what Full-Retrieve's decode did (DONE without that decode).
 */
export function triggerLabel(
  record: Pick<LabelRecord, 'candidates' | 'pool' | 'empty'>, label: DistillLabel | undefined, options: Pick<SequenceOptions, 'triggerTarget' | 'evidence'>,
): 'need' | 'done' | undefined {
  const labeled = options.triggerTarget === 'full-helps' ? fullRetrieveHelps(record) : label?.retrieval;
  return labeled ?? (options.evidence === 'full' ? fullRetrieveHelps(record) ?? 'done' : undefined);
}

/** The packed chunks the evidence prompt keeps: S* of a NEED label (`verified`), or all of them (`full`). */
export function evidenceChunks(label: DistillLabel | undefined, evidence: EvidencePrompt, packed: number): number[] {
  if (evidence === 'full') return Array.from({ length: packed }, (_, i) => i);
  return label?.retrieval === 'need' ? keptIndices(label.keep) : [];
}

function selectionSteps(
  selection: ReturnType<NonNullable<PromptLayout['control']>['selection']>, triggerLength: number, keep: boolean[],
  ids: (segments: Parameters<typeof toTokenIds>[0]) => number[], model: CompletionModel,
): number[][] {
  const { keep: keepId, drop: dropId } = model.info.special;
  const prefixTail = ids(selection.prefix).slice(triggerLength);
  return selection.steps.map((step, i) => [
    ...(i === 0 ? prefixTail : [keep[i - 1] ? keepId! : dropId!]), ...ids(step),
  ]);
}
