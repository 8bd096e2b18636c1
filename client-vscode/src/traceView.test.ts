import { expect, test } from 'vitest';
import type { CompletionTrace } from '../../shared/messages.js';
import { renderNoTrace, renderTrace } from './traceView.js';

const TRACE: CompletionTrace = {
  traceId: 't-1', uri: 'file:///ws/pkg/main%20file.py', line: 9, character: 4, policy: 'auto', effectivePolicy: 'reposhapley',
  decision: 'need', needProbability: 0.913,
  candidates: [
    { index: 1, relPath: 'pkg/geometry.py', startLine: 3, endLine: 9, kind: 'class', sources: ['definition', 'bm25'], score: 0.5, kept: true, keepProbability: 0.97 },
    { index: 2, relPath: 'pkg/util.py', startLine: 0, endLine: 20, kind: 'window', sources: ['jaccard'], score: 0.1, kept: false, keepProbability: 0.2 },
  ],
  completion: 'return Point(```x```, y)', outcome: 'ok',
  tokens: { prompt: 300, prefix: 200, suffix: 20, chunks: 80, generated: 9, reused: 150 },
  timings: { retrievalMs: 1.2, promptMs: 0.4, decisionMs: 10, selectionMs: 20, generationMs: 50.6, totalMs: 82.2 },
  indexVersion: 4, cached: false,
};

test('renders where, what, the decision, each candidate, tokens and timings', () => {
  const text = renderTrace(TRACE);
  expect(text).toContain('main file.py, line 10, column 5: **ok**');
  expect(text).toContain('Policy `auto` (ran as `reposhapley`): retrieve cross-file context, P(NEED) = 91.3%.');
  expect(text).toContain('2 retrieved, 1 kept');
  expect(text).toContain('| 1 | yes | pkg/geometry.py:4-9 | class | 0.500 | definition, bm25 | 97.0% |');
  expect(text).toContain('| 2 | no | pkg/util.py:1-20 |');
  expect(text).toContain('generated 9');
  expect(text).toContain('total **82 ms**');
  expect(text).not.toContain('## Prompt');
  expect(text).not.toContain('The model evaluated');
});

test('says how long the completion waited for the model, when the server reports it', () => {
  expect(renderTrace({ ...TRACE, timings: { ...TRACE.timings, waitMs: 1_250 } })).toContain('Waited 1250 ms for the model. Retrieval');
  expect(renderTrace(TRACE)).not.toContain('Waited');
});

test('says what the model evaluated, by stage, when the server reports it', () => {
  const tokens = { ...TRACE.tokens, evaluated: { trigger: 12, selection: 40, prompt: 150, generated: 9, reused: 300 } };
  expect(renderTrace({ ...TRACE, tokens })).toContain('The model evaluated 211 tokens: trigger 12, selection 40, prompt 150, generated 9.');
});

test('fences the completion so backticks inside cannot end the block, in the document\'s language', () => {
  expect(renderTrace({ ...TRACE, language: 'python' })).toContain('````python\nreturn Point(```x```, y)\n````');
  expect(renderTrace({ ...TRACE, language: 'go' })).toContain('````go\nreturn Point(```x```, y)\n````');
  expect(renderTrace({ ...TRACE, language: undefined })).toContain('````\nreturn Point(```x```, y)\n````');
});

test('adds the prompt when the server included it', () => {
  expect(renderTrace({ ...TRACE, prompt: '<PRE>x<SUF>' })).toContain('## Prompt');
});

test('says why there is no trace', () => {
  expect(renderNoTrace('not running')).toContain('not running');
});

test('shows t_c with P(NEED), and why generation stopped', () => {
  const text = renderTrace({ ...TRACE, needThreshold: 0.9295, stoppedBy: 'repetition' });
  expect(text).toContain('retrieve cross-file context, P(NEED) = 91.3% (retrieves at 93.0% or more).');
  expect(text).toContain('generated 9 (stopped by repetition).');
});
