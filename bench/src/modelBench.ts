/**
 * Micro-benchmark of the model runtime: load time, prompt evaluation, decide() with a
 * reused prefix, decideSequence(), logLikelihood() and greedy generation, per thread count.
 *
 *   npx tsc -p tsconfig.json --outDir .cache/build && node .cache/build/bench/src/modelBench.js \
 *     [--model file.gguf] [--threads 1,2] [--prompt 400] [--repeats 20] [--flash-attention]
 *
 * Without --model it writes the tiny random test model. Prints a Markdown table to stdout.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { PYTHON_CORPUS } from '../../test/support/byteBpe.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import type { CompletionModel, ModelSession } from '../../server/src/model/completionModel.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { nonNegativeInt, numberList, positiveInt } from './cliNumbers.js';

interface BenchOptions {
  model?: string;
  threads: number[];
  promptTokens: number;
  repeats: number;
  flashAttention: boolean;
}

interface Row {
  threads: number;
  loadMs: number;
  prefillTokPerS: number;
  decideMs: number;
  decideSeqStepMs: number;
  logLikelihoodTokPerS: number;
  generateTokPerS: number;
  generatedTokens: number;
}

function parseArgs(argv: string[]): BenchOptions {
  const flags = new Command('modelBench')
    .description('Micro-benchmark of the model runtime per thread count; prints a Markdown table')
    .option('--model <gguf>', 'model file (default: the tiny random test model, written to a temporary folder)')
    .addOption(new Option('--threads <list>', 'comma-separated thread counts, one table row each (0 = half the cores)')
      .argParser(numberList(nonNegativeInt)).default([1, 2], '1,2'))
    .option('--prompt <n>', 'prompt tokens (at most the context size - 200)', positiveInt, 400)
    .option('--repeats <n>', 'repetitions averaged per operation', positiveInt, 20)
    .option('--flash-attention', 'load the model with flash attention (default: off)')
    .parse(argv, { from: 'user' })
    .opts<{ model?: string; threads: number[]; prompt: number; repeats: number; flashAttention?: boolean }>();
  return {
    model: flags.model, threads: flags.threads, promptTokens: flags.prompt, repeats: flags.repeats,
    flashAttention: flags.flashAttention === true,
  };
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await run();
  return [result, performance.now() - start];
}

async function benchThreads(file: string, threads: number, options: BenchOptions): Promise<Row> {
  const logger = createStreamLogger('bench', 'warn');
  const [loaded, loadMs] = await timed(() =>
    loadLlamaModel({ path: file, threads, gpuLayers: 'auto', flashAttention: options.flashAttention }, logger));
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const model = loaded.model;
  try {
    return { threads, loadMs, ...(await benchOperations(model, options)) };
  } finally {
    await model.dispose();
  }
}

async function benchOperations(model: CompletionModel, options: BenchOptions): Promise<Omit<Row, 'threads' | 'loadMs'>> {
  const corpus = model.tokenize(PYTHON_CORPUS.repeat(8));
  const prompt = corpus.slice(0, Math.min(options.promptTokens, model.info.contextSize - 200));
  const [first, second] = [model.info.special.need ?? 0, model.info.special.done ?? 1];
  const session = await model.createSession();
  try {
    const [, prefillMs] = await timed(() => session.decide(prompt, first, second));
    const decideMs = await average(options.repeats, (i) => session.decide([...prompt, corpus[i]], first, second));
    const steps = 10;
    const decideSeqStepMs = (await average(options.repeats, (i) =>
      session.decideSequence([...prompt, corpus[i]], first, second, steps))) / steps;
    const target = corpus.slice(prompt.length, prompt.length + 32);
    const llMs = await average(options.repeats, () => session.logLikelihood(prompt, target));
    const generation = await benchGeneration(session, corpus, options.repeats);
    return {
      prefillTokPerS: prompt.length / (prefillMs / 1000),
      decideMs,
      decideSeqStepMs,
      logLikelihoodTokPerS: target.length / (llMs / 1000),
      ...generation,
    };
  } finally {
    await session.dispose();
  }
}

async function average(repeats: number, run: (i: number) => Promise<unknown>): Promise<number> {
  let total = 0;
  for (let i = 0; i < repeats; i++) total += (await timed(() => run(i)))[1];
  return total / repeats;
}

/**
 * Greedy generation from several prompts. Each prompt is evaluated first (decide), so the
 * timed generate() reuses it and measures decoding only. Random models stop early at
 * control tokens, so tokens are summed over prompts.
 */
async function benchGeneration(session: ModelSession, corpus: number[], prompts: number) {
  let tokens = 0;
  let ms = 0;
  for (let start = 0; start < prompts * 10; start += 10) {
    const prompt = corpus.slice(start, start + 30);
    await session.decide(prompt, 0, 1);
    const [result, elapsed] = await timed(() => session.generate(prompt, { maxTokens: 128, singleLine: false }));
    tokens += result.tokens.length;
    ms += elapsed;
  }
  return { generateTokPerS: tokens / (ms / 1000), generatedTokens: tokens };
}

function table(rows: Row[]): string {
  const header = '| threads | load ms | prefill tok/s | decide ms (reused prefix) | decideSequence ms/step | logLikelihood tok/s | generate tok/s (tokens) |';
  const lines = rows.map((r) => `| ${r.threads} | ${r.loadMs.toFixed(0)} | ${r.prefillTokPerS.toFixed(0)} | ${r.decideMs.toFixed(2)} | ` +
    `${r.decideSeqStepMs.toFixed(2)} | ${r.logLikelihoodTokPerS.toFixed(0)} | ${r.generateTokPerS.toFixed(0)} (${r.generatedTokens}) |`);
  return [header, '|---|---|---|---|---|---|---|', ...lines].join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'model-bench-'));
  try {
    const file = options.model ?? (await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), boostTokens: { 'Ċ': 3 } })).path;
    // The first load also starts the llama.cpp runtime (binary selection, backends); time it apart.
    const [first, firstLoadMs] = await timed(() => loadLlamaModel({ path: file, threads: 1, gpuLayers: 'auto' }, createStreamLogger('bench', 'warn')));
    if (first.kind === 'ok') await first.model.dispose();
    const rows: Row[] = [];
    for (const threads of options.threads) rows.push(await benchThreads(file, threads, options));
    process.stdout.write(`model ${options.model ?? 'tiny random (d=64, 2 layers, vocab 489)'}, ` +
      `prompt ${options.promptTokens} tokens, flash attention ${options.flashAttention}, ` +
      `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} CPUs\n` +
      `first load incl. runtime start: ${firstLoadMs.toFixed(0)} ms\n\n${table(rows)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
