/**
 * Speculative decoding (issue 19 item 5, issue 48 item 4): node-llama-cpp's
 * InputLookupTokenPredictor drafts tokens by finding the last generated tokens in the prompt,
 * which pays when a completion copies from the context; DraftSequenceTokenPredictor drafts them
 * with a smaller model of the same vocabulary (`--draft`, the 0.5B for the 1.5B). This compares
 * greedy decoding without and with each, alternating runs, on a prompt made to be copied from (a
 * source file, then the same file's start again: `--prompt copy`) or a plain FIM prompt in the
 * middle of a file (`--prompt fim`): the outputs must be identical, and the time tells whether
 * drafting pays on this machine (the draft model reads the prompt too, inside the timed part).
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/lookupDecodingBench.js [--model FILE|NAME] [--draft FILE|NAME]
 *     [--prompt copy|fim] [--tokens 48] [--runs 2] [--threads 2]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { DraftSequenceTokenPredictor, getLlama, InputLookupTokenPredictor, type LlamaModel, type Token, type TokenPredictor } from 'node-llama-cpp';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { REPO_ROOT } from './repoPaths.js';

interface Run {
  tokens: Token[];
  ms: number;
  validated: number;
  refuted: number;
}

type Drafting = { kind: 'none' } | { kind: 'lookup' } | { kind: 'draft'; model: LlamaModel };

async function decode(model: LlamaModel, prompt: Token[], tokens: number, threads: number, drafting: Drafting): Promise<Run> {
  const draftContext = drafting.kind === 'draft' ? await drafting.model.createContext({ contextSize: 4096, threads }) : undefined;
  const predictor: TokenPredictor | undefined = drafting.kind === 'lookup' ? new InputLookupTokenPredictor()
    : draftContext ? new DraftSequenceTokenPredictor(draftContext.getSequence(), { maxTokens: 8 }) : undefined;
  const context = await model.createContext({ contextSize: 4096, threads });
  try {
    const sequence = context.getSequence(predictor ? { tokenPredictor: predictor } : {});
    await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
    // The lookup predictor looks the draft up in these (node-llama-cpp's completion classes do the same).
    if (predictor instanceof InputLookupTokenPredictor) predictor.updateInputTokens(prompt);
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
    await draftContext?.dispose();
  }
}

/** A prompt to be copied from (`copy`), or a FIM prompt in the middle of the same file (`fim`). */
function promptText(kind: string): string {
  const source = readFileSync(path.join(REPO_ROOT, 'server', 'src', 'prompt', 'layouts.ts'), 'utf8');
  if (kind === 'copy') return `<|fim_prefix|>${source.slice(0, 2500)}\n// again, the same file:\n${source.slice(0, 600)}`;
  const cut = source.indexOf('\n', 2000) + 1;
  return `<|fim_prefix|>${source.slice(0, cut)}<|fim_suffix|>${source.slice(cut + 400, cut + 900)}<|fim_middle|>`;
}

async function main(): Promise<void> {
  const options = new Command()
    .option('--model <file|name>', 'GGUF or catalog name', 'qwen2.5-coder-0.5b')
    .option('--draft <file|name>', 'a smaller model of the same vocabulary to draft with (a third arm)')
    .option('--prompt <kind>', 'copy (made to be copied from) or fim (a plain FIM prompt)', 'copy')
    .option('--tokens <n>', 'tokens generated', Number, 48)
    .option('--runs <n>', 'runs of each, alternating', Number, 2)
    .option('--threads <n>', 'threads', Number, 2)
    .parse().opts<{ model: string; draft?: string; prompt: string; tokens: number; runs: number; threads: number }>();
  const modelPath = modelFileFromArgument(options.model);
  const llama = await getLlama({ gpu: false });
  const model = await llama.loadModel({ modelPath });
  const draftModel = options.draft ? await llama.loadModel({ modelPath: modelFileFromArgument(options.draft) }) : undefined;
  const prompt = model.tokenize(promptText(options.prompt), true);
  const arms: [string, Drafting][] = [['plain', { kind: 'none' }], ['lookup', { kind: 'lookup' }], ...(draftModel ? [['draft', { kind: 'draft', model: draftModel }] as [string, Drafting]] : [])];
  const runs = new Map<string, Run[]>(arms.map(([name]) => [name, []]));
  for (let run = 0; run < options.runs; run++) {
    for (const [name, drafting] of arms) runs.get(name)!.push(await decode(model, prompt, options.tokens, options.threads, drafting));
  }
  const reference = runs.get('plain')![0]!.tokens.join();
  const identical = [...runs.values()].every((list) => list.every((r) => r.tokens.join() === reference));
  const summary = Object.fromEntries([...runs].map(([name, list]) => [name, {
    ms: Math.round(Math.min(...list.map((r) => r.ms))), generated: list[0]!.tokens.length, accepted: list[0]!.validated, rejected: list[0]!.refuted,
  }]));
  console.log(JSON.stringify({
    model: path.basename(modelPath), draftModel: draftModel ? path.basename(modelFileFromArgument(options.draft!)) : undefined,
    prompt: options.prompt, promptTokens: prompt.length, maxTokens: options.tokens, threads: options.threads, identical, ...summary,
  }));
  await draftModel?.dispose();
  await model.dispose();
}

await main();
