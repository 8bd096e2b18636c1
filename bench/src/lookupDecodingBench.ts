/**
 * Prompt-lookup speculative decoding (issue 19 item 5): node-llama-cpp's InputLookupTokenPredictor
 * drafts tokens by finding the last generated tokens in the prompt, which pays when a completion
 * copies from the context. This compares greedy decoding with and without it on one prompt made to
 * be copied from (a source file, then the same file's start again), alternating runs: the outputs
 * must be identical, and the time tells whether drafting pays on this machine.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/lookupDecodingBench.js [--model FILE|NAME] [--tokens 48] [--runs 2] [--threads 2]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { getLlama, InputLookupTokenPredictor, type LlamaModel, type Token } from 'node-llama-cpp';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { REPO_ROOT } from './repoPaths.js';

interface Run {
  tokens: Token[];
  ms: number;
  validated: number;
  refuted: number;
}

async function decode(model: LlamaModel, prompt: Token[], tokens: number, threads: number, lookup: boolean): Promise<Run> {
  const predictor = lookup ? new InputLookupTokenPredictor() : undefined;
  const context = await model.createContext({ contextSize: 4096, threads });
  try {
    const sequence = context.getSequence(predictor ? { tokenPredictor: predictor } : {});
    await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
    // The predictor looks the draft up in these (node-llama-cpp's completion classes do the same).
    predictor?.updateInputTokens(prompt);
    const out: Token[] = [];
    const started = performance.now();
    for await (const token of sequence.evaluate([prompt[prompt.length - 1]!], { temperature: 0 })) {
      out.push(token);
      if (out.length >= tokens) break;
    }
    const ms = performance.now() - started;
    const { validated, refuted } = sequence.tokenPredictions;
    return { tokens: out, ms, validated, refuted };
  } finally {
    await context.dispose();
  }
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--model <file|name>', 'GGUF or catalog name', 'qwen2.5-coder-0.5b')
    .option('--tokens <n>', 'tokens generated', Number, 48)
    .option('--runs <n>', 'runs of each, alternating', Number, 2)
    .option('--threads <n>', 'threads', Number, 2)
    .parse().opts<{ model: string; tokens: number; runs: number; threads: number }>();
  const modelPath = modelFileFromArgument(options.model);
  const llama = await getLlama({ gpu: false });
  const model = await llama.loadModel({ modelPath });
  const source = readFileSync(path.join(REPO_ROOT, 'server', 'src', 'prompt', 'layouts.ts'), 'utf8').slice(0, 2500);
  const prompt = model.tokenize(`<|fim_prefix|>${source}\n// again, the same file:\n${source.slice(0, 600)}`, true);
  const plain: Run[] = [];
  const lookup: Run[] = [];
  for (let run = 0; run < options.runs; run++) {
    plain.push(await decode(model, prompt, options.tokens, options.threads, false));
    lookup.push(await decode(model, prompt, options.tokens, options.threads, true));
  }
  const identical = lookup.every((r) => r.tokens.join() === plain[0]!.tokens.join()) && plain.every((r) => r.tokens.join() === plain[0]!.tokens.join());
  const best = (runs: Run[]) => Math.round(Math.min(...runs.map((r) => r.ms)));
  console.log(JSON.stringify({
    model: path.basename(modelPath), promptTokens: prompt.length, generated: options.tokens, threads: options.threads, identical,
    plainMs: best(plain), lookupMs: best(lookup), draftsAccepted: lookup[0]!.validated, draftsRejected: lookup[0]!.refuted,
  }));
  await model.dispose();
}

await main();
