import { describe, expect, test } from 'vitest';
import { binaryDecision, safeLog, sigmoid } from './binaryDecision.js';

describe('binaryDecision', () => {
  test('is the softmax over the two tokens only', () => {
    const probabilities = new Map([[1, 0.3], [2, 0.1], [3, 0.6]]);
    const decision = binaryDecision(probabilities, 1, 2);
    expect(decision.probabilityFirst).toBeCloseTo(0.75, 12);
    expect(decision.logitFirst).toBeCloseTo(Math.log(0.3), 12);
    expect(decision.logitSecond).toBeCloseTo(Math.log(0.1), 12);
    expect(binaryDecision(probabilities, 2, 1).probabilityFirst).toBeCloseTo(0.25, 12);
  });

  test('also reports P(first) over the whole vocabulary, unnormalized by the pair', () => {
    const probabilities = new Map([[1, 0.3], [2, 0.1], [3, 0.6]]);
    expect(binaryDecision(probabilities, 1, 2).vocabularyProbabilityFirst).toBe(0.3);
    expect(binaryDecision(new Map([[3, 1]]), 1, 2).vocabularyProbabilityFirst).toBe(0);
  });

  test('underflowed probabilities stay finite', () => {
    const decision = binaryDecision(new Map([[1, 0.5]]), 1, 2);
    expect(Number.isFinite(decision.logitSecond)).toBe(true);
    expect(decision.probabilityFirst).toBe(1);
    expect(binaryDecision(new Map(), 1, 2).probabilityFirst).toBe(0.5);
    expect(safeLog(0)).toBeCloseTo(Math.log(1e-45), 12);
  });

  test('sigmoid is stable at the extremes', () => {
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(-1000)).toBe(0);
    expect(sigmoid(1000)).toBe(1);
    expect(sigmoid(2) + sigmoid(-2)).toBeCloseTo(1, 15);
  });
});
