/**
 * A short measurement of one model's speed on this machine, with the llama.cpp build and threads
 * the server uses: the load (file, context, first evaluation), a long and a short prompt of real
 * code read cold as the server reads prompts, and greedy generation ({@link MEASURED_WORK}):
 * about 5 s for the 0.5B on two cores.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompletionModel } from '../completionModel.js';
import type { Logger } from '../../util/logger.js';
import { loadLlamaModel } from './loadLlamaModel.js';
import { acquireRuntime } from './llamaRuntime.js';

export interface MeasureOptions {
  path: string;
  threads: number;
  /** The LoRA adapter the server loads with the file (its control pack's), which costs time too. */
  adapterPath?: string;
  /** The file hashed to its pin: loaded as the server loads such a file (checked beside the load). */
  hashPinned?: boolean;
}

/**
 * The work measured, as the server meets it: a whole prompt read cold (what the default budgets
 * fill on a real repository: a cold start, a jump to another file) and a short one (what a
 * keystroke's request reads past its cached prompt), then a line's worth of generation. Prompts
 * are read in chunks sized by time (llamaSession.ts), so a long prompt reads faster per token.
 */
export const MEASURED_WORK = { longPromptTokens: 832, shortPromptTokens: 96, generatedTokens: 32 } as const;

export interface MeasuredSpeed {
  loadMs: number;
  /** Reading {@link MEASURED_WORK.longPromptTokens} cold. */
  promptTokensPerSecond: number;
  /** Reading {@link MEASURED_WORK.shortPromptTokens} cold. */
  shortPromptTokensPerSecond: number;
  generatedTokensPerSecond: number;
  /** node-llama-cpp's version and backend, e.g. `node-llama-cpp 3.21.1 cpu`. */
  runtime: string;
  threads: number;
  /** The 1-minute load average just before: a busy machine measures slow. */
  loadAverage: number;
}

/** Loads the model, measures it and frees it; throws with llama.cpp's reason when it cannot load. */
export async function measureModelSpeed(options: MeasureOptions, logger: Logger): Promise<MeasuredSpeed> {
  const loadAverage = os.loadavg()[0]!;
  const started = performance.now();
  const { longPromptTokens, shortPromptTokens, generatedTokens } = MEASURED_WORK;
  const contextNeeded = longPromptTokens + generatedTokens + 64;
  const adapter = { ...(options.adapterPath ? { adapterPath: options.adapterPath } : {}), ...(options.hashPinned ? { hashPinned: true } : {}) };
  const loaded = await loadLlamaModel({ path: options.path, threads: options.threads, gpuLayers: 'auto', contextNeeded, ...adapter }, logger);
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const { model } = loaded;
  try {
    const text = model.tokenize(codeText());
    // The first evaluation also sets the runtime up (buffers, weight layouts): it counts as load.
    await readAndGenerate(model, text.slice(0, 32), 2);
    const loadMs = performance.now() - started;
    const short = await readAndGenerate(model, text.slice(32, 32 + shortPromptTokens), 0);
    const long = await readAndGenerate(model, text.slice(32 + shortPromptTokens, 32 + shortPromptTokens + longPromptTokens), generatedTokens);
    return {
      loadMs, loadAverage, threads: model.info.threads, runtime: await runtimeName(logger),
      promptTokensPerSecond: long.promptTokens / long.promptSeconds,
      shortPromptTokensPerSecond: short.promptTokens / short.promptSeconds,
      generatedTokensPerSecond: long.generatedTokens / long.generateSeconds,
    };
  } finally {
    await model.dispose();
  }
}

interface RunTimes {
  promptTokens: number;
  promptSeconds: number;
  generatedTokens: number;
  generateSeconds: number;
}

/** A fresh session (nothing cached) reads `tokens`, then generates greedily after them (none for 0). */
async function readAndGenerate(model: CompletionModel, tokens: number[], maxTokens: number): Promise<RunTimes> {
  if (tokens.length === 0) throw new Error('the measurement found no code to read beside it (an incomplete install?)');
  const session = await model.createSession();
  try {
    let clock = performance.now();
    await session.decide(tokens, 0, 1);
    const promptSeconds = (performance.now() - clock) / 1000;
    if (maxTokens === 0) return { promptTokens: tokens.length, promptSeconds, generatedTokens: 0, generateSeconds: 0 };
    clock = performance.now();
    const generated = await session.generate(tokens, { maxTokens, singleLine: false, repetitionStop: false });
    const generateSeconds = (performance.now() - clock) / 1000;
    return { promptTokens: tokens.length, promptSeconds, generatedTokens: Math.max(1, generated.tokens.length), generateSeconds };
  } finally {
    await session.dispose();
  }
}

/** Real code to read: this folder's own compiled modules, whatever the install. */
function codeText(): string {
  const folder = path.dirname(fileURLToPath(import.meta.url));
  return readdirSync(folder).filter((name) => /\.(js|ts)$/.test(name) && !name.includes('.test.')).sort()
    .map((name) => readFileSync(path.join(folder, name), 'utf8')).join('\n');
}

async function runtimeName(logger: Logger): Promise<string> {
  const lease = await acquireRuntime(logger);
  try {
    // The package exports no package.json; it sits above its entry point (dist/index.js).
    const manifest = path.join(path.dirname(fileURLToPath(import.meta.resolve('node-llama-cpp'))), '..', 'package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
    return `node-llama-cpp ${version ?? '?'} ${lease.llama.gpu || 'cpu'}`;
  } catch {
    return `node-llama-cpp ${lease.llama.gpu || 'cpu'}`;
  } finally {
    lease.release();
  }
}
