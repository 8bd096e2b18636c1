import { expect, test } from 'vitest';
import type { TaskResult } from '../driver/results.js';
import type { TaskType } from '../tasks/types.js';
import { compareRuns } from './compareRuns.js';

function result(taskId: string, type: TaskType, policy: string, es: number, em = 0, prompt = 100): TaskResult {
  return {
    taskId, type, repository: 'r', policy: policy as TaskResult['policy'], completion: 'c', target: 't', outcome: 'ok',
    latencyMs: 1, cycleMs: 1, scores: { em, es, idEm: 0, idF1: 0 },
    trace: { tokens: { prompt } } as TaskResult['trace'],
  };
}

// Run A (a candidate model) and run B (the shipped one) on the same three tasks, plus one each
// that the other did not run.
const candidate = [
  result('t1', 'line', 'reposhapley', 60, 1, 50), result('t2', 'line', 'reposhapley', 40, 0, 70),
  result('t3', 'api', 'reposhapley', 30, 0, 90), result('only-a', 'api', 'reposhapley', 99),
  result('t1', 'line', 'full', 0),
];
const shipped = [
  result('t3', 'api', 'full', 20, 0, 150), result('t1', 'line', 'full', 50, 0, 150), result('t2', 'line', 'full', 40, 0, 150),
  result('only-b', 'line', 'full', 0),
];

test('pairs the chosen policies by task id, per type and over all, A − B', () => {
  const { rows, unpaired } = compareRuns(
    { label: 'A', results: candidate, policy: 'reposhapley' }, { label: 'B', results: shipped, policy: 'full' }, { resamples: 200 },
  );
  expect(unpaired).toBe(2);
  expect(rows.map((r) => [r.type, r.tasks])).toEqual([['line', 2], ['api', 1], ['all', 3]]);
  const line = rows[0]!;
  expect(line.a).toEqual({ em: 50, es: 50, promptTokens: 60 });
  expect(line.b).toEqual({ em: 0, es: 45, promptTokens: 150 });
  expect(line.es.mean).toBeCloseTo(5, 10);
  expect(line.em.mean).toBeCloseTo(50, 10);
  const all = rows[2]!;
  expect(all.es.mean).toBeCloseTo((10 + 0 + 10) / 3, 10);
  expect(all.es.low).toBeLessThanOrEqual(all.es.mean);
  expect(all.es.high).toBeGreaterThanOrEqual(all.es.mean);
});

test('a policy missing from a run, or a task listed twice, is an error, not an empty table', () => {
  expect(() => compareRuns({ label: 'A', results: candidate, policy: 'none' }, { label: 'B', results: shipped, policy: 'full' }))
    .toThrow(/A: no results under policy none/);
  const twice = [...shipped, result('t1', 'line', 'full', 10)];
  expect(() => compareRuns({ label: 'A', results: candidate, policy: 'reposhapley' }, { label: 'B', results: twice, policy: 'full' }))
    .toThrow(/task t1 twice/);
});
