/**
 * ChunkShapley for one instance (RepoShapley §3.3, Algorithm 2, Appendix A.3), on the frozen
 * generator G behind a ModelSession:
 *   ℓ(∅), ℓ({i}) — teacher-forced log-likelihood of Y per token; the in-file prefix is evaluated
 *                  once and every probe reuses it (the session keeps the common prefix cached);
 *   Δ_i, φ       — surrogate game and exact Shapley values (shapley.ts);
 *   pool         — Shapley prefixes, Δ prefixes, top-L pairs and triples (pool.ts);
 *   verification — greedy decode of ∅ and of every pooled coalition, ES/EM against Y;
 *   labels       — S*, r*, discard below τ_es (labels.ts).
 * Prompts are the server's own layouts (prompt/layouts.ts): the same bytes inference sees, in the
 * format of the model being labeled (RepoShapley's sequences, or Qwen2.5-Coder's repository format).
 */
import { editSimilarity, exactMatch } from '../../bench/src/metrics/textMetrics.js';
import type { GenerationOptions, ModelSession, SpecialTokenIds } from '../../server/src/model/completionModel.js';
import type { TokenizedText } from '../../server/src/prompt/budget.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import { layoutByName, type PromptLayout } from '../../server/src/prompt/layouts.js';
import type { PromptPlan } from '../../server/src/prompt/sequences.js';
import { keepLabels, labelInstance, type InstanceLabel, type LabelThresholds, type VerifiedCoalition } from './labels.js';
import { buildPool, type PoolOptions } from './pool.js';
import { exactShapley, membersOf, surrogateGame } from './shapley.js';

export interface ChunkShapleyOptions {
  /** β: saturation scale of the surrogate (Δ is in nats per token). */
  beta: number;
  pool: PoolOptions;
  thresholds: LabelThresholds;
  /** Decoding limits for verification (as the server decodes: greedy, line or block stops). */
  generation: GenerationOptions;
}

/**
 * Defaults: the paper's K = 10, L = 3, ε = 0. β = 4 puts a coalition whose summed effect is
 * 0.5 nats/token at σ(2) ≈ 0.88, i.e. saturating, as §3.3(b) intends; N_v = K (all Shapley
 * prefixes), N_Δ = 3 short Δ prefixes; τ_es = 50 keeps instances where the best coalition gets
 * at least half the target right.
 */
export const DEFAULT_CHUNKSHAPLEY_OPTIONS: Omit<ChunkShapleyOptions, 'generation'> = {
  beta: 4,
  pool: { shapleyPrefixes: 10, deltaPrefixes: 3, topL: 3 },
  thresholds: { epsilon: 0, minEs: 50 },
};

/** One instance's inputs: the fitted in-file plan with its packed candidates, and Y. */
export interface ChunkShapleyInput {
  plan: PromptPlan;
  target: TokenizedText;
  special: SpecialTokenIds;
  /** The layout `plan` was planned and packed with; the RepoShapley format when absent. */
  layout?: PromptLayout;
}

export interface ChunkShapleyResult {
  likelihoodEmpty: number;
  likelihoodSingles: number[];
  deltas: number[];
  phi: number[];
  empty: VerifiedCoalition;
  pool: VerifiedCoalition[];
  label: InstanceLabel;
  /** KEEP per packed candidate from S* (all DROP when discarded). */
  keep: boolean[];
  timings: { probeMs: number; shapleyMs: number; verifyMs: number };
}

export async function runChunkShapley(
  session: ModelSession, input: ChunkShapleyInput, options: ChunkShapleyOptions, signal?: AbortSignal,
): Promise<ChunkShapleyResult> {
  const count = input.plan.packed.length;
  const probeStart = performance.now();
  const likelihoodEmpty = await normalizedLikelihood(session, input, undefined, signal);
  // ∅ is decoded right after its probe: the session still holds its prompt, so the decode costs
  // a token, not a second prefill (the repository layout puts chunks first, so no other probe
  // shares a prompt with anything).
  const emptyStart = performance.now();
  const empty = await verifyCoalition(session, input, 0, options.generation, signal);
  const emptyMs = performance.now() - emptyStart;
  const likelihoodSingles = await singleChunkLikelihoods(session, input, signal);
  const deltas = likelihoodSingles.map((l) => l - likelihoodEmpty);
  const shapleyStart = performance.now();
  const phi = exactShapley(surrogateGame(deltas, options.beta));
  const masks = buildPool(phi, deltas, options.pool);
  const verifyStart = performance.now();
  const pool: VerifiedCoalition[] = [];
  for (const mask of masks) pool.push(await verifyCoalition(session, input, mask, options.generation, signal));
  const label = labelInstance(pool, empty, options.thresholds);
  return {
    likelihoodEmpty, likelihoodSingles, deltas, phi, empty, pool, label,
    keep: keepLabels(label.kind === 'label' ? label.best.mask : 0, count),
    timings: {
      probeMs: shapleyStart - probeStart - emptyMs, shapleyMs: verifyStart - shapleyStart, verifyMs: performance.now() - verifyStart + emptyMs,
    },
  };
}

/** ℓ({i}) for each packed candidate i alone, in order (the single-chunk probes of §3.3(a)). */
export async function singleChunkLikelihoods(session: ModelSession, input: ChunkShapleyInput, signal?: AbortSignal): Promise<number[]> {
  const likelihoods: number[] = [];
  for (let i = 0; i < input.plan.packed.length; i++) likelihoods.push(await normalizedLikelihood(session, input, [i], signal));
  return likelihoods;
}

/** ℓ(C) = log p(Y | C) / |Y| (§3.2); `kept` undefined is the no-retrieval context. */
export async function normalizedLikelihood(
  session: ModelSession, input: ChunkShapleyInput, kept: number[] | undefined, signal?: AbortSignal,
): Promise<number> {
  const prompt = toTokenIds(promptSegments(input, kept), input.special);
  return (await session.logLikelihood(prompt, input.target.ids, signal)) / input.target.ids.length;
}

/** Greedy decode with the coalition `mask` (0 = no retrieval) and its ES/EM against Y. */
export async function verifyCoalition(
  session: ModelSession, input: ChunkShapleyInput, mask: number, generation: GenerationOptions, signal?: AbortSignal,
): Promise<VerifiedCoalition> {
  const kept = mask === 0 ? undefined : membersOf(mask, input.plan.packed.length);
  const prompt = toTokenIds(promptSegments(input, kept), input.special);
  const { text } = await session.generate(prompt, generation, signal);
  return { mask, completion: text, es: editSimilarity(text, input.target.text), em: exactMatch(text, input.target.text) };
}

/** The generation prompt with `kept` (undefined: the no-retrieval prompt, nothing packed). */
function promptSegments(input: ChunkShapleyInput, kept: number[] | undefined) {
  const layout = input.layout ?? layoutByName('reposhapley');
  return kept === undefined ? layout.generation({ ...input.plan, packed: [] }, []) : layout.generation(input.plan, kept);
}
