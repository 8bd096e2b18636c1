/**
 * The model the end-to-end tests complete with, and the completion they must see.
 *
 * A tiny random GGUF (test/support/tinyModel.ts) writes control bytes and broken UTF-8, which
 * no editor shows as readable ghost text. Boosting the output rows of the vocabulary's word
 * tokens makes greedy decoding pick words, and boosting the newline ends the line soon. Which
 * words come out still depends on the weights and the prompt, so the expected completion is
 * not hard-coded: the built CLI (`reposhapley complete`, the same engine the server runs)
 * computes it for the exact document and cursor the editor will have, and the first seed whose
 * completion is one non-empty printable line is used. Greedy decoding with fixed weights is
 * deterministic, so the editor must show exactly that text.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeTinyModel } from '../support/tinyModel.js';
import { E2E_WORKSPACE_FIXTURE, MAIN_JS } from './e2eEnv.js';

/** What to type where, and the model settings both the editor and the CLI use. */
export interface CompletionCase {
  /** A copy of the fixture workspace. */
  workspace: string;
  /** The file to type in, relative to the workspace. */
  file: string;
  /** Text typed at the end of the file (on its last, empty line). */
  typed: string;
  /** Text after the cursor once typed: '' in VS Code, '\n' in Neovim (it ends every line). */
  after?: string;
  policy: 'none' | 'full' | 'reposhapley' | 'auto';
  threads: number;
}

/** The model and the completion the editor must offer after `typed`. */
export interface ExpectedCompletion {
  modelPath: string;
  seed: number;
  /** The server's completion text at the cursor. */
  completion: string;
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/** Writes tiny models until one completes `typed` with one readable line; throws if none does. */
export async function prepareCompletion(testCase: CompletionCase, dir: string): Promise<ExpectedCompletion> {
  const { modelPath, seed, completions } = await prepareCompletions([testCase], dir);
  return { modelPath, seed, completion: completions[0]! };
}

/**
 * One model for several cases (one editor session loads one model): the first seed whose
 * completion is one readable line in every case (each typed in its own copy of the workspace).
 */
export async function prepareCompletions(
  testCases: readonly CompletionCase[], dir: string,
): Promise<{ modelPath: string; seed: number; completions: string[] }> {
  mkdirSync(dir, { recursive: true });
  const probes = testCases.map((testCase, i) => probeOf(testCase, path.join(dir, `probe-workspace-${i}`)));
  const seen: string[] = [];
  for (const seed of SEEDS) {
    const modelPath = path.join(dir, `e2e-seed${seed}.gguf`);
    await writeWordyModel(modelPath, seed);
    const completions: string[] = [];
    for (const [i, testCase] of testCases.entries()) {
      const completion = cliCompletion(probes[i]!.workspace, testCase, probes[i]!.cursor, modelPath);
      if (!isReadableLine(completion)) break;
      completions.push(completion);
    }
    if (completions.length === testCases.length) return { modelPath, seed, completions };
    seen.push(`seed ${seed}: ${JSON.stringify(completions)} then no readable line`);
  }
  const typed = testCases.map((testCase) => `${testCase.file}: ${JSON.stringify(testCase.typed)}`).join(', ');
  throw new Error(`no seed gave a one-line readable completion for every case (${typed}):\n${seen.join('\n')}`);
}

/**
 * One copy of the fixture workspace per case (`dir/workspace-<i>`) and one model that completes
 * each case's typed text with one readable line. Policy `none` and one thread, as the editors'
 * tests run: the completion depends on the document alone, not on when indexing finishes.
 */
export async function prepareFixtureCases(
  dir: string, cases: readonly { file: string; typed: string }[], after?: string,
): Promise<{ modelPath: string; completions: string[] }> {
  const testCases = cases.map(({ file, typed }, i): CompletionCase => {
    const workspace = path.join(dir, `workspace-${i}`);
    cpSync(E2E_WORKSPACE_FIXTURE, workspace, { recursive: true });
    return { workspace, file, typed, ...(after === undefined ? {} : { after }), policy: 'none', threads: 1 };
  });
  const { modelPath, completions } = await prepareCompletions(testCases, path.join(dir, 'model'));
  return { modelPath, completions };
}

/** A copy of the workspace with the case's text typed, and the cursor after it. */
function probeOf(testCase: CompletionCase, probe: string): { workspace: string; cursor: { line: number; column: number } } {
  cpSync(testCase.workspace, probe, { recursive: true });
  const original = readFileSync(path.join(testCase.workspace, testCase.file), 'utf8');
  writeFileSync(path.join(probe, testCase.file), original + testCase.typed + (testCase.after ?? ''));
  return { workspace: probe, cursor: cursorAfter(original + testCase.typed) };
}

async function writeWordyModel(modelPath: string, seed: number): Promise<void> {
  const base = await writeTinyModel({ path: modelPath, seed, contextLength: 4096 });
  const boostTokens: Record<string, number> = Object.fromEntries(
    base.tokens.filter((token) => /^Ġ?[a-z_]+$/.test(token)).map((token) => [token, 2]),
  );
  boostTokens['Ċ'] = 5; // the newline: ends the single-line completion early
  await writeTinyModel({ path: modelPath, seed, contextLength: 4096, boostTokens });
}

/** 1-based line and column just after the last character of `text`. */
export function cursorAfter(text: string): { line: number; column: number } {
  const lines = text.split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

function cliCompletion(workspace: string, testCase: CompletionCase, cursor: { line: number; column: number }, modelPath: string): string {
  return runComplete(path.join(workspace, testCase.file), cursor, workspace, [
    '--policy', testCase.policy, '--threads', String(testCase.threads), '--model', modelPath,
  ], { timeoutMs: 120_000 });
}

/** `reposhapley complete --json` at `cursor` of `file`: the completion text; throws unless the outcome is ok. */
function runComplete(
  file: string, cursor: { line: number; column: number }, workspace: string, args: string[],
  run: { timeoutMs: number; env?: NodeJS.ProcessEnv },
): string {
  const stdout = execFileSync(process.execPath, [
    MAIN_JS, 'complete', `${file}:${cursor.line}:${cursor.column}`, '--workspace', workspace, ...args, '--json',
  ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: run.timeoutMs, env: run.env });
  const trace = JSON.parse(stdout) as { completion: string; outcome: string; message?: string };
  if (trace.outcome !== 'ok') throw new Error(`the CLI could not complete with ${args.join(' ') || 'the defaults'}: ${trace.outcome} ${trace.message ?? ''}`);
  return trace.completion;
}

/** One line of printable ASCII with a letter, not ending in a space (an editor shows it as typed). */
export function isReadableLine(text: string): boolean {
  return /[a-z]/i.test(text) && /^[\x20-\x7e]*[\x21-\x7e]$/.test(text);
}

/**
 * The user's model cache as the server finds it outside tests ($XDG_CACHE_HOME or ~/.cache):
 * the tests' own REPOSHAPLEY_CACHE_DIR points at an empty folder on purpose, so it is not read.
 */
export function userModelCacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'reposhapley', 'models');
}

/** Whether the default catalog model is in `cacheDir`, verified (`reposhapley model path`). */
export function hasDefaultModel(cacheDir: string): boolean {
  return spawnSync(process.execPath, [MAIN_JS, 'model', 'path', '--cache-dir', cacheDir], { stdio: 'ignore', timeout: 60_000 }).status === 0;
}

/**
 * The completion the default model gives at the end of `file` (as the CLI's `complete` finds
 * and loads it from `cacheDir`, with the default policy): what the editor must show when its
 * server uses the same cache and threads.
 */
export function defaultModelCompletion(workspace: string, file: string, cacheDir: string, threads: number): string {
  const cursor = cursorAfter(readFileSync(path.join(workspace, file), 'utf8'));
  return runComplete(path.join(workspace, file), cursor, workspace, ['--threads', String(threads)], {
    timeoutMs: 180_000, env: { ...process.env, REPOSHAPLEY_CACHE_DIR: cacheDir },
  });
}
