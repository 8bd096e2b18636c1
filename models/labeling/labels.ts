/**
 * Verified labels (§3.3(d) and Algorithm 3): S* = argmax over the pool by ES, then EM; the
 * retrieval label r* = DONE when ES(S*) − ES(∅) ≤ ε, else NEED; an instance whose S* does not
 * reach τ_es is discarded. (Algorithm 3 as printed assigns NEED unconditionally after the DONE
 * test, a typo: the text and Alg. 3's criteria 2 give the rule used here.)
 */

/** A decoded coalition with its quality against the ground truth. */
export interface VerifiedCoalition {
  mask: number;
  completion: string;
  es: number;
  em: boolean;
}

export interface LabelThresholds {
  /** ε: the ES gain that must be exceeded to label NEED (paper default 0). */
  epsilon: number;
  /** τ_es: minimum ES of S* for the instance to be kept. */
  minEs: number;
}

export type InstanceLabel =
  | { kind: 'discard'; reason: string; best?: VerifiedCoalition }
  | { kind: 'label'; best: VerifiedCoalition; retrieval: 'need' | 'done' };

/** Lexicographic best: highest ES, then EM; ties keep the earlier pool entry (proposal order). */
export function bestCoalition(verified: readonly VerifiedCoalition[]): VerifiedCoalition | undefined {
  let best: VerifiedCoalition | undefined;
  for (const candidate of verified) {
    if (!best || candidate.es > best.es || (candidate.es === best.es && candidate.em && !best.em)) best = candidate;
  }
  return best;
}

/** r* and the keep/discard decision from S* and the no-retrieval decode. */
export function labelInstance(
  verified: readonly VerifiedCoalition[], empty: VerifiedCoalition, thresholds: LabelThresholds,
): InstanceLabel {
  const best = bestCoalition(verified);
  if (!best) return { kind: 'discard', reason: 'empty pool' };
  if (best.es < thresholds.minEs) return { kind: 'discard', reason: `ES(S*) ${best.es.toFixed(1)} < τ_es ${thresholds.minEs}`, best };
  return { kind: 'label', best, retrieval: best.es - empty.es <= thresholds.epsilon ? 'done' : 'need' };
}

/** KEEP/DROP per candidate from S* (§3.4: Q(cc_i) = KEEP iff i ∈ S*). */
export function keepLabels(mask: number, candidates: number): boolean[] {
  return Array.from({ length: candidates }, (_, i) => (mask & (1 << i)) !== 0);
}
