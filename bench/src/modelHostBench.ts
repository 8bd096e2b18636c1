/**
 * What the model host (server/src/model/childProcess/) adds to a completion (issue 22: target
 * <= 2 ms p50): the same model loaded in this process and in a host, the same operations on each,
 * interleaved (A B A B ...) so drift in the machine's load falls on both alike. Per iteration:
 *
 *   - `decide`: a decision at the end of a cached prompt (one token re-evaluated): mostly the round trip;
 *   - `completion`: a keystroke's work, the prompt with its last token changed, one decision, then
 *     8 generated tokens, as a completion after a keystroke does.
 *
 * Prints p50/p95 of each adapter and the p50 of the paired differences (host minus in-process).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/modelHostBench.js [--model FILE|NAME] [--threads 2] [--iterations 40] [--prompt-tokens 1500]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { CompletionModel, ModelSession } from '../../server/src/model/completionModel.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { loadModelInChildProcess } from '../../server/src/model/childProcess/childProcessModel.js';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { silentLogger } from '../../server/src/util/logger.js';
import { REPO_ROOT } from './repoPaths.js';
import { quantile } from './stats.js';

interface Options {
  model: string;
  threads: number;
  iterations: number;
  promptTokens: number;
}

type Adapter = { name: string; model: CompletionModel; session: ModelSession };

async function load(name: string, loader: typeof loadLlamaModel, file: string, threads: number): Promise<Adapter> {
  const loaded = await loader({ path: file, threads, gpuLayers: 0 }, silentLogger);
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  return { name, model: loaded.model, session: await loaded.model.createSession() };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** One iteration on one adapter: [decide ms, completion ms]. */
async function iteration(adapter: Adapter, prompt: number[], variant: number): Promise<[number, number]> {
  const { session } = adapter;
  const [a, b] = [prompt[1]!, prompt[2]!];
  const decide = await timed(() => session.decide(prompt, a, b));
  // The keystroke: the last token differs from the previous iteration's.
  const keystroke = [...prompt.slice(0, -1), prompt[(variant % 50) + 10]!];
  const completion = await timed(async () => {
    await session.decide(keystroke, a, b);
    await session.generate(keystroke, { maxTokens: 8, singleLine: false, repetitionStop: false });
  });
  return [decide, completion];
}

function row(name: string, values: number[]): string {
  return `| ${name} | ${quantile(values, 0.5).toFixed(2)} | ${quantile(values, 0.95).toFixed(2)} |`;
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--model <file|name>', 'GGUF or catalog name', 'qwen2.5-coder-0.5b')
    .option('--threads <n>', 'threads', Number, 2)
    .option('--iterations <n>', 'iterations per adapter', Number, 40)
    .option('--prompt-tokens <n>', 'prompt length', Number, 1500)
    .parse().opts<Options>();
  const file = modelFileFromArgument(options.model);
  const local = await load('in-process', loadLlamaModel, file, options.threads);
  const hosted = await load('model host', loadModelInChildProcess, file, options.threads);
  const source = readFileSync(path.join(REPO_ROOT, 'server', 'src', 'prompt', 'layouts.ts'), 'utf8');
  const prompt = local.model.tokenize(source).slice(0, options.promptTokens);
  if (prompt.length < options.promptTokens) throw new Error(`the source gives only ${prompt.length} tokens`);
  const times = new Map<string, { decide: number[]; completion: number[] }>();
  for (const adapter of [local, hosted]) {
    times.set(adapter.name, { decide: [], completion: [] });
    await adapter.session.generate(prompt, { maxTokens: 1, singleLine: false }); // the prompt in the cache
  }
  for (let i = 0; i < options.iterations; i++) {
    for (const adapter of i % 2 === 0 ? [local, hosted] : [hosted, local]) {
      const [decide, completion] = await iteration(adapter, prompt, i);
      times.get(adapter.name)!.decide.push(decide);
      times.get(adapter.name)!.completion.push(completion);
    }
  }
  const [here, there] = [times.get('in-process')!, times.get('model host')!];
  const differences = (key: 'decide' | 'completion') => there[key].map((t, i) => t - here[key][i]!);
  console.log(`model ${path.basename(file)}, ${options.threads} threads, prompt ${prompt.length} tokens, ${options.iterations} iterations each`);
  console.log('| operation (ms) | p50 | p95 |\n|---|---|---|');
  for (const key of ['decide', 'completion'] as const) {
    console.log(row(`${key}, in-process`, here[key]));
    console.log(row(`${key}, model host`, there[key]));
    console.log(row(`${key}, host minus in-process (paired)`, differences(key)));
  }
  await Promise.all([local.model.dispose(), hosted.model.dispose()]);
}

await main();
