import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { scoreCompletion } from '../metrics/textMetrics.js';
import { JOURNAL_FILE, JournalError, resultKey, RunJournal } from './journal.js';
import type { TaskResult } from './results.js';

let dir: string;
const run = { model: '/m.gguf', seed: 1, limit: 300, policies: ['none', 'full'], budgets: { prefixTokens: 384, suffixTokens: 64, chunkTokens: 384 } };

beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-journal-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function result(taskId: string, policy: string, outcome: TaskResult['outcome'] = 'ok', latencyMs = 12): TaskResult {
  return {
    taskId, type: 'line', repository: 'python3-click', policy, completion: 'x', target: 'y', outcome, latencyMs, cycleMs: 20,
    scores: scoreCompletion('x', 'y'),
  };
}

test('a new journal starts empty; its results come back on resume, keyed by arm and task', () => {
  const { journal, finished } = RunJournal.open(dir, run, false);
  expect(finished.size).toBe(0);
  journal.append(result('t1', 'none'));
  journal.append(result('t1', 'full', 'timeout', Number.NaN));
  const resumed = RunJournal.open(dir, run, true).finished;
  expect([...resumed.keys()]).toEqual([resultKey('none', 't1'), resultKey('full', 't1')]);
  expect(resumed.get(resultKey('none', 't1'))).toEqual(result('t1', 'none'));
  // NaN (a request that never answered) survives JSON, which would write null.
  expect(resumed.get(resultKey('full', 't1'))!.latencyMs).toBeNaN();
});

test('harness errors and a line cut off by a kill are left for the resumed run to redo', () => {
  const { journal } = RunJournal.open(dir, run, false);
  journal.append(result('t1', 'none', 'error', Number.NaN));
  journal.append(result('t2', 'none'));
  appendFileSync(path.join(dir, JOURNAL_FILE), '{"taskId":"t3","poli');
  expect([...RunJournal.open(dir, run, true).finished.keys()]).toEqual([resultKey('none', 't2')]);
});

test('an existing journal is never overwritten, nor continued by another run', () => {
  RunJournal.open(dir, run, false).journal.append(result('t1', 'none'));
  expect(() => RunJournal.open(dir, run, false)).toThrow(/exists: pass --resume/);
  expect(() => RunJournal.open(dir, { ...run, seed: 2, limit: 60 }, true)).toThrow(JournalError);
  expect(() => RunJournal.open(dir, { ...run, seed: 2, limit: 60 }, true)).toThrow(/differs in limit, seed/);
  expect(readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
});

test('a run identity with undefined fields matches its own journal', () => {
  RunJournal.open(dir, { ...run, layout: undefined }, false);
  expect(RunJournal.open(dir, { ...run, layout: undefined }, true).finished.size).toBe(0);
});
