/**
 * Issue 19's cold start as an editor meets it: server start to the first ghost text in a file
 * just opened, model load and indexing included (driver/coldStart.ts), repeated. `reposhapley
 * complete` times the same work plus the CLI's own exit; this is the editor's view of it.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/coldStartBench.js [FILE:LINE:COL] [--repeats 5] [--threads N] [--model PATH|NAME] [--adapter FILE]
 *
 * Every run starts its own model host in a folder of its own, so nothing is loaded before it. With
 * `--warm-host`, a model host already serves the model (another window has it open, or one closed
 * less than the idle time ago): each run is the window that opens next.
 *
 * Default location: the README's fixture (test/fixtures/lsp-workspace/main.py:11:23, that folder
 * as the workspace). The server runs with its default settings (the pulled default model, its
 * control pack and adapter), so set up as the README says first. `--model` names another file or
 * catalog model (`qwen2.5-coder-1.5b`, served with its adapter pack); `--adapter FILE` sets the
 * adapterPath setting: that LoRA adapter is applied at load in place of the pack's.
 *
 * The file is opened with the cursor's line cut at the cursor, as while typing there; the report
 * gives what the line held after it beside each answer. `--keep-line-rest` opens the file as it is
 * (an answer the rest of the line already holds is then trimmed, and the ghost text is empty).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { modelSettingsFromArgument } from '../../server/src/completion/modelChoice.js';
import { modelArgument } from './cliModel.js';
import type { SettingsPatch } from '../../shared/settings.js';
import { findWorkspaceRoot, parseLocation } from '../../server/src/cli/location.js';
import { coldStart, type ColdStart } from './driver/coldStart.js';
import { positiveInt } from './cliNumbers.js';
import { markdownTable, num } from './report/format.js';
import { REPO_ROOT } from './repoPaths.js';
import { quantile } from './stats.js';

const DEFAULT_LOCATION = 'test/fixtures/lsp-workspace/main.py:11:23';
/** The fixture's workspace (as the README's `complete --workspace` names it; the file's project root is this repository). */
const DEFAULT_WORKSPACE = 'test/fixtures/lsp-workspace';

interface Options {
  repeats: number;
  threads?: number;
  workspace?: string;
  serverLog?: string;
  warmHost?: boolean;
  model?: string;
  adapter?: string;
  keepLineRest?: boolean;
}

function report(runs: ColdStart[], location: string): string {
  const lineRest = runs[0]?.lineRest;
  const firsts = runs.map((r) => r.firstAnswerMs);
  const table = markdownTable(
    ['run', 'initialized (ms)', 'first ghost text (ms)', 'of it generation (ms)', 'prompt tokens', 'outcome', 'text'],
    runs.map((r, i) => [
      String(i + 1), num(r.initializedMs, 0), num(r.firstAnswerMs, 0), num(r.generationMs ?? Number.NaN, 0),
      String(r.promptTokens ?? '–'), r.outcome ?? '–', `\`${JSON.stringify(r.text)}\``,
    ]),
  );
  const lines = [
    `cold start at ${location}: ${runs.length} runs, load average ${os.loadavg()[0]!.toFixed(1)} at the end`,
    lineRest === undefined ? 'the file opened as it is' : `the cursor's line cut at the cursor; the file's line went on with \`${JSON.stringify(lineRest)}\``,
    '',
    table,
    '',
    `first ghost text: median ${num(quantile(firsts, 0.5), 0)} ms, min ${num(Math.min(...firsts), 0)}, ` +
      `max ${num(Math.max(...firsts), 0)} (model: ${runs[0]?.model ?? 'unknown'})`,
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
    .option('--warm-host', 'a model host already has the model loaded (one unmeasured start loads it first)')
    .option('--model <path|name>', 'a GGUF file or catalog model instead of the server\'s choice', modelArgument)
    .option('--adapter <file>', 'the adapterPath setting: a LoRA adapter applied at load')
    .option('--keep-line-rest', 'open the file as it is, not with the cursor\'s line cut at the cursor')
    .parse();
  const options = program.opts<Options>();
  const locationText = program.args[0] ?? DEFAULT_LOCATION;
  const location = parseLocation(locationText, REPO_ROOT);
  if (!location) throw new Error(`expected FILE:LINE:COL (1-based), got "${locationText}"`);
  const workspace = options.workspace ?? (locationText === DEFAULT_LOCATION ? DEFAULT_WORKSPACE : undefined);
  const root = workspace ? path.resolve(REPO_ROOT, workspace) : findWorkspaceRoot(location.file);
  const target = { root, file: location.file, position: { line: location.line, character: location.character } };
  const runs = options.warmHost ? await warmHostStarts(target, options) : await coldStarts(target, options);
  console.log(report(runs, `${locationText}${options.warmHost ? ', model host already loaded' : ''}`));
}

type Target = Parameters<typeof coldStart>[0];

/** The settings the options change (threads, the model, the adapterPath). */
function serverSettings(options: Options): SettingsPatch {
  return {
    ...(options.threads ? { threads: options.threads } : {}), ...modelSettingsFromArgument(options.model),
    ...(options.adapter ? { adapterPath: path.resolve(options.adapter) } : {}),
  };
}

/** Each run with a model host of its own that ends with its server: nothing loaded before it. */
async function coldStarts(target: Target, options: Options): Promise<ColdStart[]> {
  const settings: SettingsPatch = { ...serverSettings(options), modelHostIdleSeconds: 0 };
  const runs: ColdStart[] = [];
  for (let i = 0; i < options.repeats; i++) {
    const hosts = mkdtempSync(path.join(os.tmpdir(), 'cold-start-hosts-'));
    try {
      const env = { ...process.env, REPOSHAPLEY_MODEL_HOST_DIR: hosts };
      runs.push(await coldStart(target, { settings, logFile: options.serverLog, env, cutLineRest: !options.keepLineRest }));
    } finally {
      rmSync(hosts, { recursive: true, force: true });
    }
  }
  return runs;
}

/** Each run a new server beside a model host that stays loaded between them (idle 60 s). */
async function warmHostStarts(target: Target, options: Options): Promise<ColdStart[]> {
  const settings: SettingsPatch = { ...serverSettings(options), modelHostIdleSeconds: 60 };
  const hosts = mkdtempSync(path.join(os.tmpdir(), 'warm-start-hosts-'));
  const start = { settings, logFile: options.serverLog, env: { ...process.env, REPOSHAPLEY_MODEL_HOST_DIR: hosts }, cutLineRest: !options.keepLineRest };
  try {
    await coldStart(target, start);
    const runs: ColdStart[] = [];
    for (let i = 0; i < options.repeats; i++) runs.push(await coldStart(target, start));
    return runs;
  } finally {
    const { runModelHosts } = await import('../../server/src/cli/hostCommand.js');
    await runModelHosts({ stop: true }, { output: { out: () => undefined, err: () => undefined }, directory: hosts });
    rmSync(hosts, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exitCode = 1;
});
