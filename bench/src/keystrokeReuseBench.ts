/**
 * What one keystroke costs in each repository layout (issue 19): the prompt at a cursor, then the
 * prompt after typing one more character on the same line, on one session (so the second reuses
 * what it can of the first). Prints, per layout, the tokens evaluated again for the keystroke and
 * the time to the keystroke's completion. The text is a real file of this repository.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/keystrokeReuseBench.js [--model FILE|NAME] [--threads 2]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { fitBudgetsToContext } from '../../server/src/prompt/budget.js';
import { layoutByName, type LayoutName } from '../../server/src/prompt/layouts.js';
import { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import { silentLogger } from '../../server/src/util/logger.js';
import { REPO_ROOT } from './repoPaths.js';

async function main(): Promise<void> {
  const options = new Command()
    .option('--model <file|name>', 'GGUF or catalog name (a model without control tokens: the base)', 'qwen2.5-coder-0.5b')
    .option('--threads <n>', 'threads', Number, 2)
    .parse().opts<{ model: string; threads: number }>();
  const modelPath = modelFileFromArgument(options.model);
  const loaded = await loadLlamaModel({ path: modelPath, threads: options.threads, gpuLayers: 0 }, silentLogger);
  if (loaded.kind !== 'ok') throw new Error(loaded.message);
  const model = loaded.model;
  const tokenizer = new LineTokenizer(model);
  const file = readFileSync(path.join(REPO_ROOT, 'server', 'src', 'prompt', 'layouts.ts'), 'utf8');
  // A cursor in the middle of a code line; the keystroke types the character that follows it.
  const cursor = file.indexOf('return name === ') + 'return name === '.length;
  const budgets = fitBudgetsToContext(DEFAULT_SETTINGS.budgets, model.info.contextSize, DEFAULT_SETTINGS.maxTokens, DEFAULT_SETTINGS.topK);
  const rows: string[] = [];
  for (const name of ['repo-fim', 'repo-fim-line'] as LayoutName[]) {
    const layout = layoutByName(name);
    const session = await model.createSession();
    // Typing inserts a character: the prefix grows by it, the text after the cursor stays.
    const prompt = (typed: string) => {
      const plan = layout.planInFile({ prefix: file.slice(0, cursor) + typed, suffix: file.slice(cursor), path: 'server/src/prompt/layouts.ts', repoName: 'reposhapley' }, budgets, tokenizer);
      return toTokenIds(layout.generation({ ...plan, packed: [] }, []), model.info.special);
    };
    await session.generate(prompt(''), { maxTokens: 8, singleLine: true });
    const keystroke = prompt(file[cursor]!);
    const started = performance.now();
    await session.generate(keystroke, { maxTokens: 8, singleLine: true });
    const ms = performance.now() - started;
    rows.push(`| ${name} | ${keystroke.length} | ${keystroke.length - session.lastReusedTokens} | ${(ms / 1000).toFixed(2)} s |`);
    await session.dispose();
  }
  console.log(`model ${path.basename(modelPath)}, ${options.threads} threads, budgets ${JSON.stringify(budgets)}`);
  console.log('| layout | prompt tokens | evaluated again for the keystroke | keystroke to completion (8 tokens) |\n|---|---|---|---|');
  for (const row of rows) console.log(row);
  await model.dispose();
}

await main();
