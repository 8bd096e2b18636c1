/**
 * Runtime settings for one model on this machine: prefill (a cold prompt of real Python) and
 * greedy generation speed, and the resident memory (the process's, and what one live session
 * adds: compare that one `--context` per process, since a later session reuses what an earlier
 * one freed), for each combination of threads, batch size
 * and context size. The defaults in shared/settings.ts and model/llama/ come from its table.
 *
 *   node dist/bench/src/runtimeBench.js --model FILE.gguf [--threads 1,2] [--batch 128,512]
 *     [--context 2048,4096] [--prompt 600] [--generate 32] [--repeats 2]
 *
 * Prints a Markdown table to stdout. Run it on an idle machine: llama.cpp's threads spin.
 * Prefill is read as the server reads it, in a fresh session's prompt chunks (sized by time,
 * model/llama/llamaSession.ts); `--batch` is llama.cpp's batch size, which only caps a chunk.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Command, Option } from 'commander';
import type { CompletionModel } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { createStreamLogger } from '../../server/src/util/logger.js';
import { numberList, positiveInt } from './cliNumbers.js';

interface Options {
  model: string;
  threads: number[];
  batch: number[];
  context: number[];
  prompt: number;
  generate: number;
  repeats: number;
}

interface Row {
  threads: number;
  batch: number;
  context: number;
  loadMs: number;
  prefillTokPerS: number;
  generateTokPerS: number;
  rssMb: number;
  /** RSS the first session added while it lived (later ones reuse memory the first freed). */
  sessionMb: number;
}

/** Real code for the prompt: the standard library's json decoder and encoder, read as text. */
const SOURCES = ['/usr/lib/python3.11/json/decoder.py', '/usr/lib/python3.11/json/encoder.py'];

function parseArgs(argv: string[]): Options {
  return new Command('runtimeBench')
    .requiredOption('--model <gguf>', 'model file')
    .addOption(new Option('--threads <list>', 'thread counts').argParser(numberList(positiveInt)).default([1, 2], '1,2'))
    .addOption(new Option('--batch <list>', 'batch sizes').argParser(numberList(positiveInt)).default([128, 512], '128,512'))
    .addOption(new Option('--context <list>', 'context sizes').argParser(numberList(positiveInt)).default([4096], '4096'))
    .option('--prompt <n>', 'prompt tokens', positiveInt, 600)
    .option('--generate <n>', 'tokens generated', positiveInt, 32)
    .option('--repeats <n>', 'measurements averaged per row', positiveInt, 2)
    .parse(argv, { from: 'user' })
    .opts<Options>();
}

async function measure(options: Options, threads: number, batch: number, context: number): Promise<Row> {
  const logger = createStreamLogger('bench', 'warn');
  const started = performance.now();
  const loaded = await loadLlamaModel(
    { path: options.model, threads, gpuLayers: 'auto', contextSize: context, batchSize: batch }, logger,
  );
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const loadMs = performance.now() - started;
  try {
    const speeds: { prefill: number; generate: number; sessionMb: number }[] = [];
    for (let i = 0; i < options.repeats; i++) speeds.push(await prefillAndGenerate(loaded.model, options, i));
    const mean = (pick: (s: { prefill: number; generate: number; sessionMb: number }) => number) => speeds.reduce((a, s) => a + pick(s), 0) / speeds.length;
    return {
      threads, batch, context, loadMs, prefillTokPerS: mean((s) => s.prefill), generateTokPerS: mean((s) => s.generate),
      rssMb: process.memoryUsage().rss / 2 ** 20, sessionMb: speeds[0]!.sessionMb,
    };
  } finally {
    await loaded.model.dispose();
  }
}

/** A fresh session each time, so the prompt is evaluated cold; repeat `i` shifts the text. */
async function prefillAndGenerate(model: CompletionModel, options: Options, i: number) {
  const text = SOURCES.map((file) => readFileSync(file, 'utf8')).join('\n');
  const tokens = model.tokenize(text).slice(i * 50, i * 50 + options.prompt);
  const before = process.memoryUsage().rss;
  const session = await model.createSession();
  try {
    let started = performance.now();
    await session.decide(tokens, 0, 1);
    const prefillMs = performance.now() - started;
    started = performance.now();
    const result = await session.generate(tokens, { maxTokens: options.generate, singleLine: false, repetitionStop: false });
    const generateMs = performance.now() - started;
    // What one live session holds (its context: KV cache and scratch), read before it is freed.
    const sessionMb = (process.memoryUsage().rss - before) / 2 ** 20;
    return { prefill: tokens.length / (prefillMs / 1000), generate: Math.max(1, result.tokens.length) / (generateMs / 1000), sessionMb };
  } finally {
    await session.dispose();
  }
}

function table(rows: Row[]): string {
  const header = '| threads | batch | context | load ms | prefill tok/s | generate tok/s | RSS MB | one session MB |';
  const lines = rows.map((r) => `| ${r.threads} | ${r.batch} | ${r.context} | ${r.loadMs.toFixed(0)} | ` +
    `${r.prefillTokPerS.toFixed(1)} | ${r.generateTokPerS.toFixed(1)} | ${r.rssMb.toFixed(0)} | ${r.sessionMb.toFixed(0)} |`);
  return [header, '|---|---|---|---|---|---|---|---|', ...lines].join('\n');
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const rows: Row[] = [];
  for (const threads of options.threads) {
    for (const batch of options.batch) {
      for (const context of options.context) rows.push(await measure(options, threads, batch, context));
    }
  }
  process.stdout.write(`model ${options.model}, prompt ${options.prompt} tokens, ${options.generate} generated, ` +
    `load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} CPUs\n\n${table(rows)}\n`);
}

await main();
