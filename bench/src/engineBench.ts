/**
 * The engine as the server runs it: idle memory with a workspace indexed and no model loaded,
 * and the server's own overhead per completion (everything but the model's forward passes),
 * measured with a tiny generated GGUF so the forward passes are short and subtracted exactly
 * (trace totalMs − decision − selection − generation).
 *
 *   npm run build && node --expose-gc dist/bench/src/engineBench.js [DIR] [--completions N] [--threads T]
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { createCompletionEngine } from '../../server/src/completion/createEngine.js';
import type { CompletionEngine } from '../../server/src/completion/engine.js';
import { silentLogger } from '../../server/src/util/logger.js';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { positiveInt } from './cliNumbers.js';
import { ms, quantile, seededRandom } from './stats.js';

interface EngineBenchFlags { completions: number; threads: number }

function program(): Command {
  return new Command('engineBench')
    .description('Idle memory with a workspace indexed and the server\'s own overhead per completion (tiny generated GGUF)')
    .argument('[dir]', 'workspace folder to index and complete in', '/usr/lib/python3.11')
    .option('--completions <n>', 'completions measured at seeded cursors', positiveInt, 200)
    .option('--threads <n>', 'model CPU threads', positiveInt, 1);
}

function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
}

/** Cursor positions after the indentation of random non-blank lines. */
function samplePositions(files: string[], count: number): { file: string; line: number; character: number }[] {
  const random = seededRandom(11);
  const positions = [];
  while (positions.length < count) {
    const file = files[Math.floor(random() * files.length)]!;
    const lines = readFileSync(file, 'utf8').split('\n');
    const line = Math.floor(random() * lines.length);
    const text = lines[line] ?? '';
    if (text.trim().length < 6) continue;
    positions.push({ file, line, character: text.length - text.trimStart().length });
  }
  return positions;
}

async function measureOverhead(engine: CompletionEngine, files: string[], count: number): Promise<number[]> {
  const overheads: number[] = [];
  for (const position of samplePositions(files, count)) {
    const uri = pathToFileURL(position.file).href;
    engine.openDocument(uri, readFileSync(position.file, 'utf8'), 1);
    const outcome = await engine.complete({ uri, line: position.line, character: position.character, trigger: 'invoked' }, new AbortController().signal);
    engine.closeDocument(uri);
    if (outcome.kind !== 'ok') throw new Error(`completion failed: ${JSON.stringify(outcome)}`);
    const { timings } = engine.trace(outcome.traceId)!;
    overheads.push(timings.totalMs - timings.decisionMs - timings.selectionMs - timings.generationMs);
  }
  return overheads;
}

async function main(): Promise<void> {
  const command = program().parse(process.argv);
  const flags = command.opts<EngineBenchFlags>();
  const dir = path.resolve(command.processedArgs[0] as string);
  const modelDir = path.join(os.tmpdir(), 'reposhapley-bench');
  mkdirSync(modelDir, { recursive: true });
  const tiny = await writeTinyModel({ path: path.join(modelDir, 'tiny.gguf'), contextLength: 4096 });
  const rssStart = rssMb();
  const engine = await createCompletionEngine({
    logger: silentLogger, settings: { modelPath: tiny.path, policy: 'full', threads: flags.threads, maxTokens: 8 },
  });
  const stats = await engine.indexWorkspace([dir], () => {});
  const idleRss = rssMb();
  const files = pythonFiles(dir);
  const overheads = await measureOverhead(engine, files, flags.completions);
  process.stdout.write([
    '| what | value |', '|---|---|',
    `| workspace | ${dir} (${stats.files} files) |`,
    `| RSS before indexing / idle after indexing, no model (MB) | ${rssStart.toFixed(0)} / ${idleRss.toFixed(0)} |`,
    `| server overhead per completion, forward passes excluded, p50 / p95 (ms), ${overheads.length} completions, policy full | ${ms(quantile(overheads, 0.5))} / ${ms(quantile(overheads, 0.95))} |`,
    '',
  ].join('\n'));
  await engine.dispose();
}

/** Python files under `dir`, sorted (the stdlib's test suites skipped: they dominate by count). */
function pythonFiles(dir: string, depth = 0): string[] {
  if (depth > 3) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : pythonFiles(full, depth + 1);
    return entry.isFile() && entry.name.endsWith('.py') ? [full] : [];
  }).sort();
}

const SKIPPED_DIRS = new Set(['test', 'tests', 'idlelib', '__pycache__', 'site-packages', 'dist-packages']);

await main();
