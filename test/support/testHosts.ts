/**
 * The folder where the tests' model hosts listen (vitest.config.ts sets REPOSHAPLEY_MODEL_HOST_DIR
 * to it for every test and the servers they spawn), and the teardown that stops the hosts still
 * idling there when the run ends: a shared host outlives its last server by design.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One folder per test run (the pid of vitest's main process, where the config and the teardown
 * run): a run's teardown must not stop the hosts of another run going on beside it.
 */
export const TEST_HOST_DIR = path.join(os.tmpdir(), `reposhapley-tests-model-hosts-${process.pid}`);

/** The process ids in `<dir>/*.pid` (hosts write theirs while they listen). */
export function hostPids(directory: string): number[] {
  let names: string[];
  try {
    names = readdirSync(directory).filter((name) => name.endsWith('.pid'));
  } catch {
    return [];
  }
  return names.map((name) => Number(readFileSync(path.join(directory, name), 'utf8').trim())).filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** Whether a process of this id exists (signal 0: nothing is sent). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function stopTestHosts(): void {
  for (const pid of hostPids(TEST_HOST_DIR)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  rmSync(TEST_HOST_DIR, { recursive: true, force: true });
}
