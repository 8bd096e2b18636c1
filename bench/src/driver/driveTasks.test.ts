/**
 * The driver's failure paths, with the real built server where one is needed: an unusable
 * model stops the run with the server's explanation; a server that dies fails its repository's
 * tasks as results, and the run goes on.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTasks } from '../tasks/buildTasks.js';
import type { BenchTask } from '../tasks/types.js';
import { driveTasks, ModelUnavailableError } from './driveTasks.js';

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
