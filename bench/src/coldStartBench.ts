/**
 * Issue 19's cold start as an editor meets it: server start to the first ghost text in a file
 * just opened, model load and indexing included. Each repeat spawns the built language server
 * over stdio, initializes it on the workspace, opens the file and asks for an inline completion
 * at once (the worst case: no time for the background prefill a resting cursor would give), and
 * times the answer from the spawn. `reposhapley complete` times the same work plus the CLI's own
 * exit; this is the editor's view of it.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/coldStartBench.js [FILE:LINE:COL] [--repeats 5] [--threads N]
 *
 * Default location: the README's fixture (test/fixtures/lsp-workspace/main.py:11:23, that folder
 * as the workspace). The server
 * runs with its default settings (the pulled default model, its control pack and adapter), so
 * set up as the README says first.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import type { SettingsPatch } from '../../shared/settings.js';
import { findWorkspaceRoot, parseLocation, type CliLocation } from '../../server/src/cli/location.js';
import { ServerSession } from './driver/serverSession.js';
import { positiveInt } from './cliNumbers.js';
import { REPO_ROOT } from './repoPaths.js';
import { quantile } from './stats.js';

const DEFAULT_LOCATION = 'test/fixtures/lsp-workspace/main.py:11:23';
/** The fixture's workspace (as the README's `complete --workspace` names it; the file's project root is this repository). */
const DEFAULT_WORKSPACE = 'test/fixtures/lsp-workspace';
/** A first completion slower than this is a failure, not a figure. */
const ANSWER_TIMEOUT_MS = 120_000;

interface Options {
  repeats: number;
  threads?: number;
  workspace?: string;
  serverLog?: string;
}

/** One cold start, in milliseconds from the spawn. */
export interface ColdStart {
  initializedMs: number;
  firstAnswerMs: number;
  text: string;
  model?: string;
  promptTokens?: number;
  generationMs?: number;
}

async function coldStart(location: CliLocation, root: string, settings: SettingsPatch, logFile?: string): Promise<ColdStart> {
  const spawned = performance.now();
  const session = await ServerSession.start({ root, settings, logFile });
  try {
    const initializedMs = performance.now() - spawned;
    const uri = pathToFileURL(location.file).href;
    await session.open(uri, await readFile(location.file, 'utf8'));
    const { answer } = session.requestInline(uri, location, 'line', 1, ANSWER_TIMEOUT_MS);
    const { text, traceId } = await answer;
    const firstAnswerMs = performance.now() - spawned;
    const trace = await session.trace(traceId);
    return {
      initializedMs, firstAnswerMs, text,
      model: trace?.model ? `${trace.model.label}${trace.model.fallback ? ' (FALLBACK)' : ''}` : undefined,
      promptTokens: trace?.tokens.prompt, generationMs: trace?.timings.generationMs,
    };
  } finally {
    await session.dispose();
  }
}

function report(runs: ColdStart[], location: string): string {
  const firsts = runs.map((r) => r.firstAnswerMs);
  const lines = [
    `cold start at ${location}: ${runs.length} runs, load average ${os.loadavg()[0]!.toFixed(1)} at the end`,
    '',
    '| run | initialized (ms) | first ghost text (ms) | of it generation (ms) | prompt tokens | text |',
    '|---|---|---|---|---|---|',
    ...runs.map((r, i) => `| ${i + 1} | ${r.initializedMs.toFixed(0)} | ${r.firstAnswerMs.toFixed(0)} | ` +
      `${r.generationMs?.toFixed(0) ?? '–'} | ${r.promptTokens ?? '–'} | \`${JSON.stringify(r.text)}\` |`),
    '',
    `first ghost text: median ${quantile(firsts, 0.5).toFixed(0)} ms, min ${Math.min(...firsts).toFixed(0)}, ` +
      `max ${Math.max(...firsts).toFixed(0)} (model: ${runs[0]?.model ?? 'unknown'})`,
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const program = new Command('coldStartBench')
    .description('Server start to the first ghost text in a just-opened file, as an editor drives the server')
    .argument('[location]', 'FILE:LINE:COL, 1-based', DEFAULT_LOCATION)
    .option('--repeats <n>', 'cold starts to run', positiveInt, 5)
    .option('--threads <n>', 'llama.cpp threads (default: the server\'s)', positiveInt)
    .option('--workspace <dir>', 'workspace root (default: the file\'s project root)')
    .option('--server-log <file>', 'append each server\'s debug log to this file')
    .parse();
  const options = program.opts<Options>();
  const locationText = program.args[0] ?? DEFAULT_LOCATION;
  const location = parseLocation(locationText, REPO_ROOT);
  if (!location) throw new Error(`expected FILE:LINE:COL (1-based), got "${locationText}"`);
  const workspace = options.workspace ?? (locationText === DEFAULT_LOCATION ? DEFAULT_WORKSPACE : undefined);
  const root = workspace ? path.resolve(REPO_ROOT, workspace) : findWorkspaceRoot(location.file);
  const settings: SettingsPatch = options.threads ? { threads: options.threads } : {};
  const runs: ColdStart[] = [];
  for (let i = 0; i < options.repeats; i++) runs.push(await coldStart(location, root, settings, options.serverLog));
  console.log(report(runs, locationText));
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exitCode = 1;
});
