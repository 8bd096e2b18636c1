import { expect, test } from 'vitest';
import type { CompletionTrace } from '../../../shared/messages.js';
import type { TaskResult } from '../driver/results.js';
import { harnessTiming, projectWallMs } from './harnessTiming.js';
import { summarize } from './summary.js';
import { scoreCompletion } from './textMetrics.js';

function trace(overrides: { decision: 'need' | 'done'; kept: boolean[]; prompt: number; reused: number; modelMs: number }): CompletionTrace {
  return {
    traceId: 't', uri: 'file:///x.py', line: 0, character: 0, policy: 'full', effectivePolicy: 'full',
    decision: overrides.decision, completion: '', outcome: 'ok', cached: false, indexVersion: 1,
    candidates: overrides.kept.map((kept, i) => ({ index: i + 1, relPath: 'a.py', startLine: 0, endLine: 1, kind: 'window', sources: [], score: 1, kept })),
    tokens: { prompt: overrides.prompt, prefix: 0, suffix: 0, chunks: 0, generated: 0, reused: overrides.reused },
    timings: { retrievalMs: 0, promptMs: 0, decisionMs: 0, selectionMs: 0, generationMs: overrides.modelMs, totalMs: overrides.modelMs },
  };
}

function result(taskId: string, policy: 'none' | 'full', completion: string, target: string, extra: Partial<TaskResult> = {}): TaskResult {
  return {
    taskId, type: 'line', repository: 'r', policy, completion, target, outcome: completion ? 'ok' : 'empty',
    latencyMs: 100, cycleMs: 120, scores: scoreCompletion(completion, target), ...extra,
  };
}

const results: TaskResult[] = [
  result('a', 'none', 'x = 1', 'x = 1', { latencyMs: 10 }),
  result('b', 'none', '', 'y = 2', { latencyMs: 20 }),
  result('c', 'none', 'z', 'zz', { latencyMs: 30, outcome: 'timeout' }),
  // Listed in another order than `none`: pairs are matched by task id.
  result('c', 'full', 'zz', 'zz', { trace: trace({ decision: 'need', kept: [true, false, true], prompt: 300, reused: 150, modelMs: 80 }) }),
  result('a', 'full', 'x = 1', 'x = 1', { trace: trace({ decision: 'need', kept: [true], prompt: 100, reused: 0, modelMs: 60 }) }),
  result('b', 'full', 'y = 2', 'y = 2', { trace: trace({ decision: 'done', kept: [], prompt: 200, reused: 50, modelMs: 40 }) }),
];

test('per-group numbers, hand-computed', () => {
  const { groups } = summarize(results, ['none', 'full'], ['line'], { resamples: 200 });
  const none = groups.find((g) => g.policy === 'none' && g.type === 'line')!;
  const full = groups.find((g) => g.policy === 'full' && g.type === 'all')!;
  expect(none.tasks).toBe(3);
  expect(none.em.mean).toBeCloseTo(100 / 3, 10);
  // ES: 100, 0 (empty vs 5 chars), 50 (z vs zz).
  expect(none.es.mean).toBeCloseTo(50, 10);
  expect(none.failures).toBe(1);
  expect(none.empty).toBe(1);
  expect(none.latency).toEqual({ p50: 20, p95: 30, p99: 30 });
  expect(Number.isNaN(none.needRate)).toBe(true); // No traces, nothing to say.
  expect(full.em.mean).toBe(100);
  expect(full.needRate).toBeCloseTo(2 / 3, 10);
  expect(full.candidates).toBeCloseTo(4 / 3, 10);
  expect(full.kept).toBeCloseTo(1, 10);
  expect(full.promptTokens).toBe(200);
  expect(full.reusedRatio).toBeCloseTo(200 / 600, 10);
});

test('paired differences match tasks by id', () => {
  const { differences } = summarize(results, ['none', 'full'], ['line'], { resamples: 500 });
  const all = differences.find((d) => d.type === 'all')!;
  expect(all).toMatchObject({ a: 'full', b: 'none', tasks: 3 });
  // EM: full 100,100,100 vs none 100,0,0 -> +66.7 points.
  expect(all.em.mean).toBeCloseTo(200 / 3, 10);
  // ES: full 100 everywhere vs none 100, 0, 50 -> +50.
  expect(all.es.mean).toBeCloseTo(50, 10);
  expect(all.es.low).toBeGreaterThanOrEqual(0);
  expect(all.es.high).toBeLessThanOrEqual(100);
});

test('harness timing separates the model from the rest', () => {
  const timing = harnessTiming(results.filter((r) => r.policy === 'full'), [{ repository: 'r', root: '/r', startMs: 900, warmupMs: { full: 100 } }]);
  expect(timing.runs).toBe(3);
  expect(timing.modelMs.mean).toBe(60);
  expect(timing.overheadMs.mean).toBe(60);
  expect(timing.repositoryStartMs.mean).toBe(1000);
  // 900 runs at 60 ms overhead + 500 ms model, 10 repositories at 1 s.
  expect(projectWallMs(timing, 900, 10, 500)).toBe(900 * 560 + 10_000);
});

test('typing: keystroke-to-answer percentiles pool every answered request of every task', () => {
  const typing = (keystrokeMs: number[]) => ({
    keystrokes: keystrokeMs.length, requests: keystrokeMs.length, cancelled: 0, shown: keystrokeMs.length, empty: 0, cacheHits: 0,
    reusedTokens: 0, promptTokens: 1, settledLatencyMs: keystrokeMs[keystrokeMs.length - 1]!, latenciesMs: keystrokeMs, keystrokeMs, firstMs: 5000,
  });
  const typed = [
    result('a', 'full', 'x', 'x', { typing: typing([100, 300]) }),
    result('b', 'full', 'y', 'y', { typing: typing([200, 400, 1000]) }),
  ];
  const full = summarize(typed, ['full'], ['line'], { resamples: 50 }).groups.find((g) => g.type === 'all')!;
  expect(full.typing?.keystroke).toEqual({ p50: 300, p95: 1000, p99: 1000 });
  // Results from before the model's answers were told apart have none to pool.
  expect(Number.isNaN(full.typing?.modelKeystroke.p50)).toBe(true);
  expect(full.typing?.settled.p50).toBe(300);
  expect(full.typing?.first.p50).toBe(5000);
});

test('typing: the model-answered keystrokes are pooled apart from cache and typed-through answers', () => {
  const stats = (keystrokeMs: number[], modelKeystrokeMs: number[]) => ({
    keystrokes: keystrokeMs.length, requests: keystrokeMs.length, cancelled: 0, shown: keystrokeMs.length, empty: 0,
    cacheHits: keystrokeMs.length - modelKeystrokeMs.length, reusedTokens: 0, promptTokens: 1,
    settledLatencyMs: keystrokeMs[keystrokeMs.length - 1]!, latenciesMs: keystrokeMs, keystrokeMs, modelKeystrokeMs, firstMs: 5000,
  });
  const typed = [
    result('a', 'full', 'x', 'x', { typing: stats([1, 1, 900], [900]) }),
    result('b', 'full', 'y', 'y', { typing: stats([2, 700, 1], [700]) }),
  ];
  const all = summarize(typed, ['full'], ['line'], { resamples: 50 }).groups.find((g) => g.type === 'all')!;
  expect(all.typing?.keystroke.p50).toBe(1);
  expect(all.typing?.modelKeystroke).toEqual({ p50: 700, p95: 900, p99: 900 });
});
