import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { scoreCompletion } from '../metrics/textMetrics.js';
import { borrowResults, JOURNAL_FILE, JournalError, journalOrigins, resultKey, RunJournal } from './journal.js';
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

describe('runs named by what they serve', () => {
  const { model: _model, ...rest } = run;
  const served = { ...rest, served: { modelSha256: 'a'.repeat(64) } };

  test('a journal written before `served` resumes under the identity of that time', () => {
    RunJournal.open(dir, run, false).journal.append(result('t1', 'none'));
    expect(RunJournal.open(dir, served, true, run).finished.size).toBe(1);
    // Without the old identity, or with another one, it is another run.
    expect(() => RunJournal.open(dir, served, true)).toThrow(/differs in model, served/);
    expect(() => RunJournal.open(dir, served, true, { ...run, model: '/other.gguf' })).toThrow(/differs in model/);
  });

  test('a journal with `served` is compared by content, never by the old identity', () => {
    RunJournal.open(dir, served, false).journal.append(result('t1', 'none'));
    expect(RunJournal.open(dir, served, true, { ...run, model: '/renamed.gguf' }).finished.size).toBe(1);
    const otherBytes = { ...rest, served: { modelSha256: 'b'.repeat(64) } };
    expect(() => RunJournal.open(dir, otherBytes, true, run)).toThrow(/differs in served/);
    expect(() => borrowResults(dir, { ...otherBytes, policies: ['none'] }, [{ policy: 'none' }], run)).toThrow(/differs in served/);
  });
});

describe('borrowResults (--reuse)', () => {
  const lender = { ...run, policies: ['none', 'full', 'auto'] };
  const borrower = { ...run, policies: ['none', 'full', 'reposhapley'], needThreshold: 0.3 };
  const arms = [{ policy: 'none' }, { policy: 'full' }, { policy: 'reposhapley' }] as const;

  function lenderJournal(identity: Record<string, unknown>): void {
    const { journal } = RunJournal.open(dir, identity, false);
    for (const policy of ['none', 'full', 'auto']) journal.append(result('t1', policy));
    journal.append(result('t2', 'full', 'error', Number.NaN));
  }

  test('lends the arms both runs have, and with another t_c only the policies that never read it', () => {
    lenderJournal(lender);
    const borrowed = borrowResults(dir, borrower, arms);
    expect(borrowed.map((r) => `${r.policy}/${r.taskId}`)).toEqual(['none/t1', 'full/t1']);
  });

  test('with the same t_c, every shared arm is lent; harness errors never are', () => {
    lenderJournal({ ...lender, policies: ['none', 'full', 'reposhapley', 'auto'] });
    const { journal } = RunJournal.open(dir, { ...run, policies: ['none', 'full', 'reposhapley', 'auto'] }, true);
    journal.append(result('t1', 'reposhapley'));
    const borrowed = borrowResults(dir, { ...run, policies: ['reposhapley', 'full'] }, [{ policy: 'reposhapley' }, { policy: 'full' }]);
    expect(borrowed.map((r) => `${r.policy}/${r.taskId}`).sort()).toEqual(['full/t1', 'reposhapley/t1']);
  });

  test('a run that differs in anything else lends nothing and says in what', () => {
    lenderJournal(lender);
    expect(() => borrowResults(dir, { ...borrower, model: '/other.gguf' }, arms)).toThrow(/differs in model/);
    expect(() => borrowResults(dir, { ...borrower, budgets: { prefixTokens: 256, suffixTokens: 64, chunkTokens: 384 } }, arms))
      .toThrow(JournalError);
    expect(() => borrowResults(path.join(dir, 'missing'), borrower, arms)).toThrow(/does not exist/);
  });

  test('copies name the run that measured them, through a resume and through a copy of a copy', () => {
    lenderJournal(lender);
    const borrowed = borrowResults(dir, borrower, arms);
    expect(borrowed.every((r) => r.reusedFrom === path.resolve(dir))).toBe(true);

    // The borrowing run journals the copies beside what it measures, then is interrupted and resumed.
    const out = path.join(dir, 'borrower');
    const { journal } = RunJournal.open(out, borrower, false);
    for (const copy of borrowed) journal.append(copy);
    journal.append(result('t1', 'reposhapley'));
    const origins = journalOrigins(RunJournal.open(out, borrower, true).finished);
    expect(origins).toEqual({ resumed: 1, reused: 2, sources: [path.resolve(dir)] });

    // A third run borrowing from the second keeps the first lender's name on the first's results.
    const again = borrowResults(out, { ...borrower, needThreshold: 0.3, policies: ['reposhapley', 'none'] }, [{ policy: 'reposhapley' }, { policy: 'none' }]);
    expect(Object.fromEntries(again.map((r) => [r.policy, r.reusedFrom]))).toEqual({ none: path.resolve(dir), reposhapley: path.resolve(out) });
  });
});
