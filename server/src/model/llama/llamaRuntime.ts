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
 * The shared runtime, created on first use (a GPU when one is usable): prebuilt binaries only (`build: 'never'`,
 * so a missing binary fails fast instead of compiling llama.cpp), and a thread cap of the machine's
 * parallelism (node-llama-cpp's default of at least 4 threads made generation 100x slower on 2
 * cores). Contexts never ask for more (`resolveThreads`).
 */
export async function acquireRuntime(logger: Logger): Promise<RuntimeLease> {
  const llama = await startRuntime();
  logSinks.add(logger);
  return { llama, release: () => logSinks.delete(logger) };
}

/**
 * Starts creating a runtime without waiting for it (loading the native binding takes ~0.3 s),
 * so a later {@link acquireRuntime} finds it ready. A failure surfaces there, not here.
 */
export function prepareRuntime(): void {
  startRuntime().catch(() => undefined);
}

function startRuntime(): Promise<Llama> {
  runtime ??= createRuntime().catch((error: unknown) => {
    runtime = undefined; // let a later load retry
    throw error;
  });
  return runtime;
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

/**
 * llama.cpp warnings that say nothing a user can act on, kept at debug: Qwen2.5's vocabulary has
 * `</s>` as a plain token and llama.cpp, which repairs it itself, warns at every load; a LoRA
 * adapter's tensors cannot live in the CPU's AMX-repacked buffers and llama.cpp says so once per
 * adapted weight (96 lines for the pack's adapter), then uses plain CPU buffers as it should.
 */
const HARMLESS_WARNINGS = [
  /control-looking token: \d+ '<\/s>' was not control-type/,
  /llama_adapter_lora_init_impl: lora for '[^']+' cannot use buft '[^']+', fallback to CPU/,
];

function routeLog(level: LlamaLogLevel, message: string): void {
  const text = message.trimEnd();
  if (text === '') return;
  const harmless = HARMLESS_WARNINGS.some((pattern) => pattern.test(text));
  for (const logger of logSinks) {
    if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) logger.error(`llama.cpp: ${text}`);
    else if (level === LlamaLogLevel.warn && !harmless) logger.warn(`llama.cpp: ${text}`);
    else logger.debug(`llama.cpp: ${text}`);
  }
}

/**
 * Threads for a context: the configured count, at most the machine's cores, or
 * {@link defaultThreads} for 0. More threads than cores never helps and badly hurts: llama.cpp's
 * threads spin for cores they cannot get (threads=157 on 2 cores: > 10 s per completion).
 */
export function resolveThreads(configured: number, cores = os.availableParallelism()): number {
  return configured > 0 ? Math.min(Math.floor(configured), cores) : defaultThreads(cores);
}

/**
 * Half the machine's cores, but two where there are two. llama.cpp's threads spin while they
 * wait for each other, so a thread that shares its core with something busy stalls the rest:
 * an editor service leaves room on larger machines. On 2 cores with the 0.5B default model
 * (docs/benchmarks.md, runtime), two threads were 1.9x faster than one on an idle machine
 * (prefill 41 vs 21 tokens/s, generation 17 vs 10) and on par beside one busy process (prefill
 * 22.5 vs 20.2, generation 7.4 vs 8.8), so the second core pays.
 */
export function defaultThreads(cores = os.availableParallelism()): number {
  return Math.min(cores, Math.max(2, Math.floor(cores / 2)));
}
