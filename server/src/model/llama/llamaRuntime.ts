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
