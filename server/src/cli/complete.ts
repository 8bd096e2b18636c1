/**
 * `reposhapley complete FILE:LINE:COL`: index the file's workspace, open the file, complete at
 * the position and print the completion and why it came out so (the trace).
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SETTINGS, type SettingsPatch, type PolicyName } from '../../../shared/settings.js';
import type { CompletionEngine } from '../completion/engine.js';
import { modelSettingsFromArgument, planModel } from '../completion/modelChoice.js';
import { boundMessage } from '../indexing/indexResults.js';
import type { EngineFactory } from '../lsp/server.js';
import type { Logger } from '../util/logger.js';
import { findWorkspaceRoot, isDirectory, parseLocation, type CliLocation } from './location.js';
import { EXIT_FAILURE, EXIT_NO_MODEL, EXIT_OK, type CliOutput } from './output.js';
import { formatTrace } from './formatTrace.js';

/** Options of `complete` as commander parses them. */
export interface CompleteOptions {
  workspace?: string;
  policy?: PolicyName;
  model?: string;
  /** A llama-server URL to run the model (the `modelServer` setting). */
  modelServer?: string;
  threads?: number;
  json?: boolean;
  /** Put the rendered generation prompt into the trace and print it. */
  showPrompt?: boolean;
}

/** Everything `complete` needs from its caller. */
export interface CompleteDeps {
  createEngine: EngineFactory;
  logger: Logger;
  output: CliOutput;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Defaults to looking in models/default. */
  findBundledModel?: () => string | undefined;
}

/** The message when no model can be found, with both ways to pass one. */
export const NO_MODEL_HELP = [
  'No model is available: the default model is not downloaded and this build bundles no fallback.',
  'Run `reposhapley model pull`, or pass a GGUF model with --model PATH, or set REPOSHAPLEY_MODEL=PATH.',
].join('\n');

/** Runs `complete`; resolves with the process exit code. */
export async function runComplete(locationText: string, options: CompleteOptions, deps: CompleteDeps): Promise<number> {
  const { output } = deps;
  const location = parseLocation(locationText);
  if (!location) {
    output.err(`expected FILE:LINE:COL (1-based), got "${locationText}"`);
    return EXIT_FAILURE;
  }
  const settings = settingsFrom(options);
  const plan = planModel(
    { ...DEFAULT_SETTINGS, ...settings },
    { env: deps.env, ...(deps.findBundledModel ? { bundled: deps.findBundledModel } : {}) },
  );
  if (plan.candidates.length === 0) {
    output.err(plan.notice ? `${plan.notice}\n${NO_MODEL_HELP}` : NO_MODEL_HELP);
    return EXIT_NO_MODEL;
  }
  const text = await readFile(location.file, 'utf8').catch(() => undefined);
  if (text === undefined) {
    output.err(`cannot read ${location.file}`);
    return EXIT_FAILURE;
  }
  const problem = positionProblem(text, location);
  if (problem) {
    output.err(problem);
    return EXIT_FAILURE;
  }
  const root = options.workspace ?? findWorkspaceRoot(location.file);
  if (!isDirectory(root)) {
    output.err(`workspace ${root} is not a directory`);
    return EXIT_FAILURE;
  }
  const engine = await deps.createEngine({ logger: deps.logger, settings });
  try {
    return await completeWith(engine, root, location, text, options, deps);
  } finally {
    await engine.dispose();
  }
}

/** Why a position does not address the file, in 1-based terms; undefined when it does. */
export function positionProblem(text: string, location: CliLocation): string | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  if (location.line >= lines.length) return `line ${location.line + 1} is past the end (${lines.length} lines)`;
  const length = lines[location.line].length;
  if (location.character > length) return `column ${location.character + 1} is past the end of line ${location.line + 1} (${length + 1} at most)`;
  return undefined;
}

function settingsFrom(options: CompleteOptions): SettingsPatch {
  return {
    // One answer and the process ends: no next request would find the full prompt read.
    quickFirstAnswer: false,
    ...modelSettingsFromArgument(options.model),
    ...(options.modelServer ? { modelServer: options.modelServer } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
    ...(options.showPrompt ? { tracePrompt: true } : {}),
  };
}

async function completeWith(
  engine: CompletionEngine, root: string, location: CliLocation, text: string, options: CompleteOptions, deps: CompleteDeps,
): Promise<number> {
  const { output } = deps;
  const shown = new Set<string>();
  engine.onNotice((notice) => {
    shown.add(notice.message);
    output.err(`${notice.severity}: ${notice.message}`);
  });
  output.err(`indexing ${root} ...`);
  const stats = await engine.indexWorkspace([root], () => {}, deps.signal);
  output.err(`indexed ${stats.files} files in ${Math.round(stats.wallMs)} ms${stats.bound ? `; ${boundMessage(stats.bound)}` : ''}`);
  const uri = pathToFileURL(location.file).href;
  engine.openDocument(uri, text, 1);
  const outcome = await engine.complete(
    { uri, line: location.line, character: location.character, trigger: 'invoked' },
    deps.signal ?? new AbortController().signal,
  );
  switch (outcome.kind) {
    case 'ok':
      return printResult(engine, outcome.text, outcome.traceId, options, output);
    case 'no-model':
      if (!shown.has(outcome.message)) output.err(outcome.message);
      return EXIT_NO_MODEL;
    case 'cancelled':
      output.err('cancelled');
      return EXIT_FAILURE;
    case 'disabled':
      output.err(outcome.message ?? 'completions are disabled by the settings');
      return EXIT_FAILURE;
    case 'unknown-document':
    case 'error':
      output.err(outcome.message);
      return EXIT_FAILURE;
  }
}

function printResult(engine: CompletionEngine, text: string, traceId: string, options: CompleteOptions, output: CliOutput): number {
  const trace = engine.trace(traceId);
  if (options.json) {
    output.out(JSON.stringify(trace ?? { completion: text, traceId }, null, 2));
    return EXIT_OK;
  }
  output.out('--- completion ---');
  output.out(text);
  output.out('--- trace ---');
  for (const line of trace ? formatTrace(trace) : ['(no trace recorded)']) output.out(line);
  return EXIT_OK;
}
