import { describe, expect, it } from 'vitest';
import type { TaskResult } from '../../bench/src/driver/results.js';
import { pairBranches } from './pairBranches.js';

function result(taskId: string, policy: string, es: number, trace?: { decision: 'need' | 'done'; needProbability?: number }, outcome = 'ok'): TaskResult {
  return {
    taskId, type: 'line', repository: 'r', policy, completion: '', target: '', outcome, latencyMs: 0, cycleMs: 0,
    scores: { es, em: es === 100 ? 1 : 0 }, trace,
  } as unknown as TaskResult;
}

describe('pairBranches', () => {
  it("pairs reposhapley's own NEED branch with none's DONE branch (t_c tuning)", () => {
    const results = [result('a', 'reposhapley', 80, { decision: 'need', needProbability: 0.7 }), result('a', 'none', 40)];
    expect(pairBranches(results, results)).toEqual([{ needProbability: 0.7, need: { es: 80, em: 0 }, done: { es: 40, em: 0 } }]);
  });

  it('refuses a reposhapley result that skipped its NEED branch when that branch is asked for', () => {
    const results = [result('a', 'reposhapley', 40, { decision: 'done', needProbability: 0.1 }), result('a', 'none', 40)];
    expect(() => pairBranches(results, results)).toThrow(/--need-threshold 0/);
  });

  it('leaves out a task a branch did not answer before asking which branch reposhapley took', () => {
    const results = [
      result('a', 'reposhapley', 0, undefined, 'timeout'), result('a', 'none', 40),
      result('b', 'reposhapley', 80, { decision: 'need', needProbability: 0.7 }), result('b', 'none', 0, undefined, 'error'),
    ];
    expect(pairBranches(results, results)).toEqual([]);
  });

  it("takes Full-Retrieve as the NEED branch and reposhapley's DONE branch as none when asked for full", () => {
    const results = [
      result('a', 'reposhapley', 40, { decision: 'done', needProbability: 0.2 }), result('a', 'full', 90),
      result('b', 'reposhapley', 70, { decision: 'done', needProbability: 0.6 }), result('b', 'full', 50),
    ];
    expect(pairBranches(results, results, 'full')).toEqual([
      { needProbability: 0.2, need: { es: 90, em: 0 }, done: { es: 40, em: 0 } },
      { needProbability: 0.6, need: { es: 50, em: 0 }, done: { es: 70, em: 0 } },
    ]);
  });

  it("prefers none's own result for the DONE branch, and leaves out tasks a branch did not answer", () => {
    const results = [
      result('a', 'reposhapley', 80, { decision: 'need', needProbability: 0.9 }), result('a', 'full', 90), result('a', 'none', 30),
      result('b', 'reposhapley', 70, { decision: 'done', needProbability: 0.6 }), result('b', 'full', 0, undefined, 'timeout'),
    ];
    expect(pairBranches(results, results, 'full')).toEqual([{ needProbability: 0.9, need: { es: 90, em: 0 }, done: { es: 30, em: 0 } }]);
  });

  it("takes Full-Retrieve's completions from another run of the same tasks when given", () => {
    const triggered = [result('a', 'reposhapley', 40, { decision: 'done', needProbability: 0.3 })];
    const other = [result('a', 'full', 90)];
    expect(pairBranches(triggered, triggered, 'full', other)).toEqual([{ needProbability: 0.3, need: { es: 90, em: 0 }, done: { es: 40, em: 0 } }]);
    expect(pairBranches(triggered, triggered, 'full')).toEqual([]);
  });
});
