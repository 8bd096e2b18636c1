import { expect, test } from 'vitest';
import type { TraceCandidate } from '../../../shared/messages.js';
import { calleeEvidence } from './evidence.js';

const callee = { name: 'load', qualifiedName: 'load', relPath: 'pkg/io.py', kind: 'function', startLine: 40, endLine: 52 };

function candidate(relPath: string, startLine: number, endLine: number, kept: boolean): TraceCandidate {
  return { index: 1, relPath, startLine, endLine, kind: 'window', sources: ['jaccard'], score: 1, kept };
}

test('a candidate covers the callee when its lines [start, end) hold the definition\'s first line', () => {
  expect(calleeEvidence({ callee }, { candidates: [candidate('pkg/io.py', 30, 50, true)] })).toEqual({ found: true, inPrompt: true });
  expect(calleeEvidence({ callee }, { candidates: [candidate('pkg/io.py', 40, 41, false)] })).toEqual({ found: true, inPrompt: false });
});

test('the wrong file, or a window ending on the header line or starting after it, is no evidence', () => {
  const candidates = [candidate('pkg/other.py', 30, 50, true), candidate('pkg/io.py', 20, 40, true), candidate('pkg/io.py', 41, 60, true)];
  expect(calleeEvidence({ callee }, { candidates })).toEqual({ found: false, inPrompt: false });
});

test('tasks without a callee (line, block) have no evidence record', () => {
  expect(calleeEvidence({}, { candidates: [candidate('pkg/io.py', 30, 50, true)] })).toBeUndefined();
});

test('an import outline is evidence when it lists the callee, whatever its own lines', () => {
  const outline = { ...candidate('app/main.py', 0, 5, true), kind: 'outline', lists: [{ relPath: 'pkg/io.py', startLine: 40 }] };
  expect(calleeEvidence({ callee }, { candidates: [outline] })).toEqual({ found: true, inPrompt: true });
  const other = { ...outline, lists: [{ relPath: 'pkg/io.py', startLine: 12 }], relPath: 'pkg/io.py', startLine: 30, endLine: 50 };
  expect(calleeEvidence({ callee }, { candidates: [other] })).toEqual({ found: false, inPrompt: false });
});

test('the selection ranking counts covering-over-other pairs of P(KEEP), ties as half', () => {
  const scored = (relPath: string, startLine: number, keepProbability: number): TraceCandidate =>
    ({ ...candidate(relPath, startLine, startLine + 20, keepProbability >= 0.5), keepProbability });
  const candidates = [scored('pkg/io.py', 30, 0.7), scored('pkg/a.py', 0, 0.6), scored('pkg/b.py', 0, 0.7), scored('pkg/c.py', 0, 0.9)];
  expect(calleeEvidence({ callee }, { candidates })?.keepRanking).toEqual({ wins: 1.5, pairs: 3 });
});

test('no ranking without a P(KEEP) on both sides (full retrieves without selecting)', () => {
  const candidates = [candidate('pkg/io.py', 30, 50, true), candidate('pkg/a.py', 0, 20, true)];
  expect(calleeEvidence({ callee }, { candidates })?.keepRanking).toBeUndefined();
  const onlyCovering = [{ ...candidate('pkg/io.py', 30, 50, true), keepProbability: 0.8 }];
  expect(calleeEvidence({ callee }, { candidates: onlyCovering })?.keepRanking).toBeUndefined();
});
