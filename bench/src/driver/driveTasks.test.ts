/**
 * The driver's failure paths, with the real built server where one is needed: an unusable
 * model stops the run with the server's explanation; a server that dies fails its repository's
 * tasks as results, and the run goes on; a resumed run drives only what its journal lacks.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTasks } from '../tasks/buildTasks.js';
import type { BenchTask } from '../tasks/types.js';
import { scoreCompletion } from '../metrics/textMetrics.js';
import { driveTasks, ModelUnavailableError } from './driveTasks.js';
import { resultKey } from './journal.js';
import type { TaskResult } from './results.js';

let dir: string;
let tasks: BenchTask[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'reposhapley-drive-'));
  await writeFile(path.join(dir, 'mod.py'), 'def double(value):\n    result = value * 2\n    checked = int(result)\n    return checked\n');
  tasks = (await buildTasks([{ name: 'tiny', root: dir }], { types: ['line', 'block'], limit: 3, seed: 1, perFileCap: 3 })).tasks;
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('a model that cannot load stops the run with the server\'s message', async () => {
  const missing = path.join(dir, 'no-such-model.gguf');
  const run = driveTasks(tasks, {
    arms: [{ policy: 'full' }], settings: { modelPath: missing, threads: 1 }, limits: { requestTimeoutMs: 30_000 }, env: { REPOSHAPLEY_MODEL: '' },
  });
  await expect(run).rejects.toBeInstanceOf(ModelUnavailableError);
  await expect(run).rejects.toThrow(/no-such-model\.gguf/);
}, 60_000);

test('a server that dies fails its tasks as results instead of throwing', async () => {
  const crashing = path.join(dir, 'crash.mjs');
  await writeFile(crashing, 'process.stderr.write("boom\\n"); process.exit(3);\n');
  const { results, repositories } = await driveTasks(tasks, {
    arms: [{ policy: 'none' }, { policy: 'full' }], settings: {}, limits: { requestTimeoutMs: 5_000 }, serverScript: crashing,
  });
  expect(results).toHaveLength(tasks.length * 2);
  expect(new Set(results.map((r) => r.outcome))).toEqual(new Set(['error']));
  expect(repositories[0]!.error).toMatch(/exited \(code 3/);
  expect(repositories[0]!.error).toMatch(/boom/);
}, 60_000);

/** A result as an earlier, interrupted run journaled it. */
function journaled(task: BenchTask, policy: string): TaskResult {
  return {
    taskId: task.id, type: task.type, repository: task.repository, policy, completion: task.target, target: task.target,
    outcome: 'ok', latencyMs: 5, cycleMs: 6, scores: scoreCompletion(task.target, task.target),
  };
}

test('resuming with every result journaled starts no server and records them as they were', async () => {
  const finished = new Map(['none', 'full'].flatMap((arm) => tasks.map((t) => [resultKey(arm, t.id), journaled(t, arm)] as const)));
  const measured: boolean[] = [];
  const { results, repositories } = await driveTasks(tasks, {
    arms: [{ policy: 'none' }, { policy: 'full' }], settings: {}, limits: { requestTimeoutMs: 5_000 },
    serverScript: path.join(dir, 'never-started.mjs'), finished, onResult: (_r, fresh) => measured.push(fresh),
  });
  expect(results).toEqual([...finished.values()]);
  expect(measured.every((fresh) => !fresh)).toBe(true);
  expect(repositories[0]!.resumed).toBe(true);
});

test('resuming drives only the task runs the journal lacks', async () => {
  const crashing = path.join(dir, 'crash-resume.mjs');
  await writeFile(crashing, 'process.exit(4);\n');
  const finished = new Map(tasks.map((t) => [resultKey('none', t.id), journaled(t, 'none')] as const));
  const { results } = await driveTasks(tasks, {
    arms: [{ policy: 'none' }, { policy: 'full' }], settings: {}, limits: { requestTimeoutMs: 5_000 }, serverScript: crashing, finished,
  });
  // The server was started for the missing arm (and died): `none` keeps its journaled results.
  expect(results.filter((r) => r.policy === 'none').map((r) => r.outcome)).toEqual(tasks.map(() => 'ok'));
  expect(results.filter((r) => r.policy === 'full').map((r) => r.outcome)).toEqual(tasks.map(() => 'error'));
}, 60_000);
