/**
 * The soak benchmark's short version in CI (bench/src/soak.ts is the full one): 300 edits typed
 * three times faster than a person, a completion request per keystroke, then a 2-second burst of
 * 100 requests per second. No crash, every request answered, and the server ends with 0. The
 * bounds here only catch a stuck request (30 s; a cancelled one 10 s after its cancellation):
 * latency and memory are benchmark figures (docs/reliability.md), not pass/fail.
 *
 * Workspace: three packages of the Python standard library (json, http, email), or the repo's
 * fixtures where /usr/lib/python3.11 is missing.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runSoak } from '../../bench/src/soakDriver.js';
import { fasterTyping, HUMAN_TYPING, typableFiles } from '../../bench/src/soakTyping.js';
import { createTempWorkspace, type TempWorkspace } from './fixtureWorkspace.js';
import { REPO_ROOT } from './rawLspClient.js';

const STDLIB = '/usr/lib/python3.11';
const ROOTS = existsSync(STDLIB)
  ? ['json', 'http', 'email'].map((name) => path.join(STDLIB, name))
  : [path.join(REPO_ROOT, 'test', 'fixtures', 'retrieval-ws'), path.join(REPO_ROOT, 'test', 'fixtures', 'index-pkg')];

let scratch: TempWorkspace;
beforeAll(async () => {
  scratch = await createTempWorkspace('reposhapley-soak-');
});
afterAll(() => scratch?.dispose());

test('soak (short): 300 typed edits and a 2-second burst, nothing stuck, no crash', async () => {
  const files = ROOTS.flatMap(typableFiles);
  expect(files.length).toBeGreaterThan(0);
  const report = await runSoak({
    roots: ROOTS, files, modelPath: scratch.modelPath,
    edits: 300, typing: fasterTyping(HUMAN_TYPING, 3), burstSeconds: 2, seed: 7,
    answerBoundMs: 30_000, cancelBoundMs: 10_000,
  });
  expect(report.edits).toBe(300);
  for (const phase of [report.replay, report.burst]) {
    expect(phase.stuck).toBe(0);
    expect(phase.errors).toBe(0);
    expect(phase.shownLatencyMs.count + phase.cancelSettleMs.count).toBe(phase.requests);
  }
  expect(report.replay.requests).toBe(300);
  expect(report.burst.requests).toBe(200);
  expect(report.burst.cancelled).toBeGreaterThan(150);
  expect(Number.isFinite(report.burst.drainMs)).toBe(true);
  expect(report.serverErrors).toEqual([]);
  expect(report.exitCode).toBe(0);
}, 300_000);
