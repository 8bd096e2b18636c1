/**
 * RepoShapley inference (Algorithm 1): the model decides <NEED>/<DONE> by the two-token softmax
 * against t_c; on NEED it reads the packed candidates and emits one <KEEP>/<DROP> per candidate
 * (restricted to those two tokens); generation then sees the kept chunks only.
 */
import { inFileSegments, selectionSegments } from '../prompt/sequences.js';
import type { PackedChunk } from '../prompt/budget.js';
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
  const decisionStart = performance.now();
  let needProbability: number | undefined;
  if (!options.alwaysNeed) {
    const x = context.toIds(inFileSegments(context.inFile));
    needProbability = (await session.decide(x, ids.need!, ids.done!, signal)).probabilityFirst;
  }
  const decisionMs = performance.now() - decisionStart;
  if (needProbability !== undefined && needProbability < context.needThreshold) {
    const result = await generateWith(context, [], []);
    return { decision: 'done', needProbability, candidates: [], packed: [], kept: [], decisionMs, selectionMs: 0, ...result };
  }
  const { candidates, packed } = context.retrieveAndPack();
  const selectionStart = performance.now();
  const keepProbabilities = packed.length === 0 ? [] : await selectChunks(context, packed);
  const selectionMs = performance.now() - selectionStart;
  const kept = keepProbabilities.flatMap((p, i) => (p >= 0.5 ? [i] : []));
  const result = await generateWith(context, packed, kept);
  return { decision: 'need', needProbability, candidates, packed, kept, keepProbabilities, decisionMs, selectionMs, ...result };
}

/** q_1..q_K under <SELECT>, each restricted to {KEEP, DROP} (Algorithm 1 line 16). */
async function selectChunks(context: PolicyContext, packed: PackedChunk[]): Promise<number[]> {
  const { session, special: ids, signal } = context;
  const prompt = context.toIds(selectionSegments({ ...context.inFile, packed }));
  const decisions = await session.decideSequence(prompt, ids.keep!, ids.drop!, packed.length, signal);
  return decisions.map((d) => d.probabilityFirst);
}
