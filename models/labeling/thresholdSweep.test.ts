import { expect, test } from 'vitest';
import { scoreAt, sweepThresholds, triggerSkill, type PairedTask } from './thresholdSweep.js';

const task = (p: number, done: number, need: number): PairedTask => ({
  needProbability: p, done: { es: done, em: done === 100 ? 1 : 0 }, need: { es: need, em: need === 100 ? 1 : 0 },
});

test('t_c routes each task to the branch its P(<NEED>) picks', () => {
  const tasks = [task(0.9, 20, 80), task(0.2, 60, 40)];
  expect(scoreAt(tasks, 0)).toEqual({ threshold: 0, es: 60, em: 0, needRate: 1 });
  expect(scoreAt(tasks, 0.5)).toEqual({ threshold: 0.5, es: 70, em: 0, needRate: 0.5 });
  expect(scoreAt(tasks, 1)).toEqual({ threshold: 1, es: 40, em: 0, needRate: 0 });
});

test('the sweep finds the threshold that separates helpful retrieval from harmful', () => {
  const tasks = [task(0.9, 20, 80), task(0.7, 10, 100), task(0.4, 70, 30), task(0.2, 60, 40)];
  const { best } = sweepThresholds(tasks);
  expect(best.threshold).toBeGreaterThan(0.4);
  expect(best.threshold).toBeLessThanOrEqual(0.7);
  expect(best.es).toBe((80 + 100 + 70 + 60) / 4);
});

test('ties go to fewer retrievals', () => {
  const tasks = [task(0.8, 50, 50), task(0.3, 50, 50)];
  const { best } = sweepThresholds(tasks);
  expect(best.needRate).toBe(0);
});

test('no tasks is an error, not a threshold', () => {
  expect(() => sweepThresholds([])).toThrow(/no paired tasks/);
});

test('trigger skill: 1 when P(<NEED>) separates the winners, 0.5 when it is unrelated, ties left out', () => {
  const separating = [task(0.9, 20, 80), task(0.7, 10, 100), task(0.4, 70, 30), task(0.2, 60, 40), task(0.5, 50, 50)];
  expect(triggerSkill(separating)).toEqual({ decisive: 4, needWins: 2, auc: 1, oracleEs: (80 + 100 + 70 + 60 + 50) / 5 });
  const inverted = [task(0.1, 20, 80), task(0.9, 70, 30)];
  expect(triggerSkill(inverted).auc).toBe(0);
  const unrelated = [task(0.6, 20, 80), task(0.6, 70, 30), task(0.2, 20, 80), task(0.2, 70, 30)];
  expect(triggerSkill(unrelated).auc).toBe(0.5);
});

test('trigger skill without a decisive pair is 0.5, not a division by zero', () => {
  expect(triggerSkill([task(0.9, 50, 50)])).toEqual({ decisive: 0, needWins: 0, auc: 0.5, oracleEs: 50 });
});
