/**
 * Two-token softmax from a next-token distribution (RepoShapley Algorithm 1 lines 3 and 15:
 * Softmax over T_R = {NEED, DONE} or T_S = {KEEP, DROP}).
 */
import type { BinaryDecision } from '../completionModel.js';

/**
 * The smallest probability a float32 softmax can report is ~1.4e-45; below it llama.cpp
 * returns 0. Flooring keeps log-probabilities finite (ln 1e-45 ≈ -103.6).
 */
export const MIN_PROBABILITY = 1e-45;

/** ln p, floored at ln {@link MIN_PROBABILITY}. */
export function safeLog(probability: number): number {
  return Math.log(Math.max(probability, MIN_PROBABILITY));
}

/**
 * Decision between `first` and `second` from full-vocabulary probabilities. The logits
 * reported are log-probabilities (log-softmax): the true logits shifted by one constant,
 * which the two-token softmax cancels.
 */
export function binaryDecision(probabilities: ReadonlyMap<number, number>, first: number, second: number): BinaryDecision {
  const logitFirst = safeLog(probabilities.get(first) ?? 0);
  const logitSecond = safeLog(probabilities.get(second) ?? 0);
  return {
    probabilityFirst: sigmoid(logitFirst - logitSecond), logitFirst, logitSecond,
    vocabularyProbabilityFirst: probabilities.get(first) ?? 0,
  };
}

/** 1 / (1 + e^-x), without overflow for large |x|. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}
