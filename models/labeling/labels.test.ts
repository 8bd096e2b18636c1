import { expect, test } from 'vitest';
import { bestCoalition, keepLabels, labelInstance, type VerifiedCoalition } from './labels.js';

const decoded = (mask: number, es: number, em = false): VerifiedCoalition => ({ mask, completion: '', es, em });
const thresholds = { epsilon: 0, minEs: 50 };

test('S* maximizes ES, then EM; ties keep the earlier proposal', () => {
  expect(bestCoalition([decoded(1, 80), decoded(2, 90), decoded(4, 90)])!.mask).toBe(2);
  expect(bestCoalition([decoded(1, 90), decoded(2, 90, true)])!.mask).toBe(2);
  expect(bestCoalition([])).toBeUndefined();
});

test('r* = NEED only when S* beats the no-retrieval decode by more than ε', () => {
  expect(labelInstance([decoded(3, 90)], decoded(0, 70), thresholds)).toMatchObject({ kind: 'label', retrieval: 'need' });
  expect(labelInstance([decoded(3, 70)], decoded(0, 70), thresholds)).toMatchObject({ kind: 'label', retrieval: 'done' });
  expect(labelInstance([decoded(3, 75)], decoded(0, 70), { ...thresholds, epsilon: 5 })).toMatchObject({ retrieval: 'done' });
});

test('instances whose S* stays under τ_es are discarded', () => {
  expect(labelInstance([decoded(3, 40)], decoded(0, 10), thresholds)).toMatchObject({ kind: 'discard' });
  expect(labelInstance([], decoded(0, 10), thresholds)).toMatchObject({ kind: 'discard', reason: 'empty pool' });
});

test('KEEP exactly the members of S*', () => {
  expect(keepLabels(0b1010, 4)).toEqual([false, true, false, true]);
});
