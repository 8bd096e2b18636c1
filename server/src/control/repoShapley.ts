/**
 * RepoShapley inference (Algorithm 1): the model decides <NEED>/<DONE> by the two-token softmax
 * against t_c (or, for a model that declares it, by P(<NEED>) over the whole vocabulary: see
 * `triggerProbability`); on NEED it reads the packed candidates and emits one <KEEP>/<DROP> per candidate
 * (restricted to those two tokens); generation then sees the kept chunks only. Where the
 * decisions are read is the layout's ControlFormat (prompt/layouts.ts).
 */
import type { BinaryDecision } from '../model/completionModel.js';
import type { TriggerSoftmax } from '../model/reposhapleyKeys.js';
import type { PackedChunk } from '../prompt/budget.js';
import type { ControlFormat } from '../prompt/layouts.js';
import { generateWith } from './generate.js';
import type { ContextPolicy, PolicyContext, PolicyResult } from './types.js';

/** Options for ablations (RepoShapley Table 2, row 7 "No Trigger"). */
export interface RepoShapleyOptions {
  /** Skip the NEED/DONE decision and always retrieve. */
  alwaysNeed?: boolean;
}

export function createRepoShapleyPolicy(options: RepoShapleyOptions = {}): ContextPolicy {
  return {
    name: 'reposhapley',
    run: (context) => runRepoShapley(context, options),
  };
}

async function runRepoShapley(context: PolicyContext, options: RepoShapleyOptions): Promise<PolicyResult> {
  const { session, special: ids, signal } = context;
  const control = controlOf(context);
  const decisionStart = performance.now();
  let needProbability: number | undefined;
  if (!options.alwaysNeed) {
    needProbability = context.decisions?.need();
    if (needProbability === undefined) {
      const x = context.toIds(control.trigger(context.inFile));
      needProbability = triggerProbability(await session.decide(x, ids.need!, ids.done!, signal), context.triggerSoftmax);
      context.decisions?.rememberNeed(needProbability);
    }
  }
  const decisionMs = performance.now() - decisionStart;
  if (needProbability !== undefined && needProbability < context.needThreshold) {
    const result = await generateWith(context, [], []);
    return { decision: 'done', needProbability, candidates: [], packed: [], kept: [], decisionMs, selectionMs: 0, ...result };
  }
  const { candidates, packed } = await context.retrieveAndPack();
  const selectionStart = performance.now();
  let keepProbabilities = packed.length === 0 ? [] : context.decisions?.keep(packed);
  if (keepProbabilities === undefined) {
    keepProbabilities = await selectChunks(context, control, packed);
    context.decisions?.rememberKeep(packed, keepProbabilities);
  }
  const selectionMs = performance.now() - selectionStart;
  const kept = keepProbabilities.flatMap((p, i) => (p >= 0.5 ? [i] : []));
  const result = await generateWith(context, packed, kept);
  return { decision: 'need', needProbability, candidates, packed, kept, keepProbabilities, decisionMs, selectionMs, ...result };
}

/**
 * P(<NEED>) as the model's rows were trained to give it. `vocabulary`: <NEED> competes with every
 * token the model could write where the completion starts, so it rises where the model is unsure
 * of the code, the cue a frozen network exposes and a linear row over its state cannot
 * (docs/control-tokens.md, "Where the trigger is read").
 */
export function triggerProbability(decision: BinaryDecision, softmax: TriggerSoftmax): number {
  if (softmax !== 'vocabulary') return decision.probabilityFirst;
  if (decision.vocabularyProbabilityFirst === undefined) {
    throw new Error('this model reads its trigger over the whole vocabulary, and its backend (a llama-server) reports only the two tokens: ' +
      'run the reposhapley policy on the local model, or choose the full policy');
  }
  return decision.vocabularyProbabilityFirst;
}

function controlOf(context: PolicyContext): ControlFormat {
  const control = context.layout.control;
  if (!control) throw new Error(`the ${context.layout.name} layout has no control format: resolvePolicy should not have chosen reposhapley`);
  return control;
}

/**
 * q_1..q_K, each restricted to {KEEP, DROP} (Algorithm 1 line 16), read where the control format
 * puts them; the chosen token is appended before the next step. Each decide() evaluates only what
 * the previous one did not (the session keeps the common prefix cached).
 */
async function selectChunks(context: PolicyContext, control: ControlFormat, packed: PackedChunk[]): Promise<number[]> {
  const { session, special: ids, signal } = context;
  const { prefix, steps } = control.selection({ ...context.inFile, packed });
  if (steps.every((step) => step.length === 0)) {
    const decisions = await session.decideSequence(context.toIds(prefix), ids.keep!, ids.drop!, steps.length, signal);
    return decisions.map((d) => d.probabilityFirst);
  }
  const tokens = context.toIds(prefix);
  const probabilities: number[] = [];
  for (const step of steps) {
    tokens.push(...context.toIds(step));
    const decision = await session.decide([...tokens], ids.keep!, ids.drop!, signal);
    probabilities.push(decision.probabilityFirst);
    tokens.push(decision.probabilityFirst >= 0.5 ? ids.keep! : ids.drop!);
  }
  return probabilities;
}
