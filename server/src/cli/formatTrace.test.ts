import { expect, test } from 'vitest';
import type { CompletionTrace } from '../../../shared/messages.js';
import { formatTrace } from './formatTrace.js';

const trace: CompletionTrace = {
  traceId: 't1', uri: 'file:///w/main.py', line: 10, character: 4, policy: 'auto', effectivePolicy: 'full',
  decision: 'need', completion: 'x', outcome: 'ok', indexVersion: 3,
  candidates: [
    { index: 1, relPath: 'main.py', startLine: 0, endLine: 2, kind: 'outline', sources: ['import'], score: 1, kept: true,
      lists: [{ relPath: 'pkg/a.py', startLine: 3 }, { relPath: 'pkg/b.py', startLine: 9 }] },
    { index: 2, relPath: 'pkg/a.py', startLine: 3, endLine: 8, kind: 'function', sources: ['jaccard', 'definition'], score: 0.05, kept: false, keepProbability: 0.25 },
  ],
  tokens: { prompt: 200, prefix: 90, suffix: 10, chunks: 100, generated: 4, reused: 0 },
  timings: { retrievalMs: 1, promptMs: 2, decisionMs: 3, selectionMs: 0, generationMs: 50, totalMs: 56 },
};

test('candidates print 1-based inclusive lines; an import outline says how many definitions it lists', () => {
  const lines = formatTrace(trace);
  expect(lines).toContain('  [1] KEEP main.py:1-2 outline of 2 imported definitions  score 1.000  (import)');
  expect(lines).toContain('  [2] drop pkg/a.py:4-8 function  score 0.050  (jaccard, definition)  P(KEEP) 25.0%');
  expect(lines[2]).toBe('candidates: 2 retrieved, 1 kept');
});

test('a model decision shows t_c beside P(NEED), and the tokens line says why generation stopped', () => {
  const lines = formatTrace({ ...trace, effectivePolicy: 'reposhapley', decision: 'done', needProbability: 0.866, needThreshold: 0.9295, stoppedBy: 'repetition' });
  expect(lines[1]).toBe('policy: auto -> reposhapley; decision: done (P(NEED) 86.6%, t_c 93.0%)');
  expect(lines.find((line) => line.startsWith('tokens:'))).toBe('tokens: prompt 200 (prefix 90, suffix 10, chunks 100), generated 4, stopped by repetition, reused 0');
});

test('a P(NEED) read over the whole vocabulary is tiny, and shows its exponent instead of 0.0%', () => {
  const lines = formatTrace({ ...trace, effectivePolicy: 'reposhapley', decision: 'need', needProbability: 3.2e-6, needThreshold: 1.5e-6 });
  expect(lines[1]).toBe('policy: auto -> reposhapley; decision: need (P(NEED) 3.2e-4%, t_c 1.5e-4%)');
});

test('the tokens line adds what the model evaluated, by stage, when the trace has it', () => {
  const tokens = { ...trace.tokens, evaluated: { trigger: 0, selection: 0, prompt: 120, generated: 4, reused: 80 } };
  expect(formatTrace({ ...trace, tokens }).find((line) => line.startsWith('tokens:'))).toBe(
    'tokens: prompt 200 (prefix 90, suffix 10, chunks 100), generated 4, reused 0; evaluated 124 (trigger 0, selection 0, prompt 120, generated 4)');
});

test('the timings line starts with the wait for the model when the trace has it', () => {
  const timings = { ...trace.timings, waitMs: 2_745 };
  expect(formatTrace({ ...trace, timings }).find((line) => line.startsWith('timings:'))).toMatch(/^timings: waited for the model 2745 ms, retrieval /);
  expect(formatTrace(trace).find((line) => line.startsWith('timings:'))).toMatch(/^timings: retrieval /);
});
