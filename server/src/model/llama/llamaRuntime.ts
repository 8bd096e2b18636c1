/**
 * One llama.cpp runtime (node-llama-cpp `Llama`) per process, shared by every loaded model.
 * Its native log callback is process-wide, so logs are routed to the loggers of the models
 * currently loaded, never to stdout (stdout carries the LSP protocol).
 */
import os from 'node:os';
import { getLlama, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import type { Logger } from '../../util/logger.js';

const logSinks = new Set<Logger>();
let runtime: Promise<Llama> | undefined;

/** A registration of a model's logger with the shared runtime; release it on dispose. */
export interface RuntimeLease {
  llama: Llama;
  release(): void;
}

/**
 * The shared runtime, created on first use: prebuilt binaries only (`build: 'never'`, so a
 * missing binary fails fast instead of compiling llama.cpp), GPU when one is usable, and a
 * thread cap of the machine's parallelism (node-llama-cpp's default of at least 4 threads
 * made generation 100x slower on 2 cores).
 */
export async function acquireRuntime(logger: Logger, threads: number): Promise<RuntimeLease> {
  runtime ??= createRuntime().catch((error: unknown) => {
    runtime = undefined; // let a later load retry
    throw error;
  });
  const llama = await runtime;
  // The cap bounds all contexts together; an explicit larger setting is the user's call.
  if (llama.maxThreads !== 0 && threads > llama.maxThreads) llama.maxThreads = threads;
  logSinks.add(logger);
  return { llama, release: () => logSinks.delete(logger) };
}

async function createRuntime(): Promise<Llama> {
  return getLlama({
    gpu: 'auto',
    build: 'never',
    logLevel: LlamaLogLevel.warn,
    logger: routeLog,
    progressLogs: false,
    maxThreads: os.availableParallelism(),
  });
}

function routeLog(level: LlamaLogLevel, message: string): void {
  const text = message.trimEnd();
  if (text === '') return;
  for (const logger of logSinks) {
    if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) logger.error(`llama.cpp: ${text}`);
    else if (level === LlamaLogLevel.warn) logger.warn(`llama.cpp: ${text}`);
    else logger.debug(`llama.cpp: ${text}`);
  }
}

/** Threads for a context: the configured count, or the machine's parallelism for 0. */
export function resolveThreads(configured: number): number {
  return configured > 0 ? Math.floor(configured) : defaultThreads();
}

/**
 * Half the machine's cores, at least one. llama.cpp's threads spin while they wait for each
 * other, so one thread that has to share its core with anything else (the editor, a build,
 * a training job) stalls them all: measured here on 2 cores under load, 64 tokens took 16.1 s
 * with 2 threads and 80 ms with 1 (docs/benchmarks.md). An editor service leaves room.
 */
export function defaultThreads(): number {
  return Math.max(1, Math.floor(os.availableParallelism() / 2));
}
