/**
 * The speed measurement `auto` decides by, made from the server: `reposhapley model speed` in a
 * child process, so that the server itself never loads llama.cpp (a native abort ends only the
 * child). Run once per machine, right after the first pull, while no model of the server runs;
 * again before a load where `auto`'s pick is pulled but its measurement no longer counts
 * (engineModels.ts `measureIfUnmeasured`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../util/packageRoot.js';
import type { Logger } from '../util/logger.js';

/** Measures `model` (pulled) at `threads` and keeps the result in the model cache. */
export type SpeedMeasurer = (model: string, threads: number, cacheDir: string | undefined, logger: Logger) => Promise<void>;

/** Longer than any machine needs to load a catalog model and read 256 tokens with it. */
const MEASURE_TIMEOUT_MS = 180_000;

export const measureInChildProcess: SpeedMeasurer = async (model, threads, cacheDir, logger) => {
  const cli = path.join(packageRoot(), 'dist', 'server', 'src', 'main.js');
  const args = [cli, 'model', 'speed', model, '--threads', String(threads), ...(cacheDir ? ['--cache-dir', cacheDir] : [])];
  logger.info(`measuring this machine's speed with ${model} for the model setting auto (once per machine)`);
  try {
    const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: MEASURE_TIMEOUT_MS });
    for (const line of stdout.split('\n').filter(Boolean)) logger.info(`model speed: ${line}`);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    logger.warn(`measuring the speed for auto failed; it stays on the smallest model until "reposhapley model speed" succeeds: ${stderr?.trim() || (error as Error).message}`);
  }
};
