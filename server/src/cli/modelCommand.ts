/**
 * `reposhapley model pull|list|path|speed`: fetch a catalog model into the per-user cache, show the
 * catalog, print a cached model's path, measure this machine's speed for `model: "auto"`. Results
 * go to stdout, progress and problems to stderr.
 */
import { AUTO_MODEL, chooseAutoModelHere, LATENCY_TARGETS, type AutoChoice } from '../modelStore/autoModel.js';
import { cachedDerivedModel, cachedModelPath, pullHint, resolveCacheDir, servedAdapter } from '../modelStore/cacheDir.js';
import { machineKey, saveSpeedMeasurement, type SpeedMeasurement } from '../modelStore/machineSpeed.js';
import { MODEL_CATALOG, type CatalogEntry } from '../modelStore/catalog.js';
import { formatMegabytes } from '../modelStore/outcome.js';
import type { TransferProgress } from '../modelStore/progress.js';
import { pullCatalogModel, type PullOptions } from '../modelStore/pull.js';
import type { PullOutcome } from '../modelStore/outcome.js';
import { resolveThreads } from '../model/threads.js';
import { createStreamLogger } from '../util/logger.js';
import { EXIT_FAILURE, EXIT_NO_MODEL, EXIT_OK, type CliOutput } from './output.js';

/** Options of the `model` subcommands as commander parses them. */
export interface ModelOptions {
  cacheDir?: string;
  /** pull only: hash the cached file even when it is marked verified. */
  verify?: boolean;
  /** pull and speed: the model's CPU threads, as the server's `threads` setting (0: from the machine). */
  threads?: number;
}

/** Everything the `model` subcommands need from their caller. */
export interface ModelDeps {
  output: CliOutput;
  progress: TransferProgress;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Defaults to the real catalog. */
  catalog?: readonly CatalogEntry[];
  /** Defaults to pullCatalogModel (tests pass a fake). */
  pull?: (name: string, options: PullOptions, catalog: readonly CatalogEntry[]) => Promise<PullOutcome>;
  /** Defaults to Date.now. */
  now?: () => number;
  /** Measures one pulled model file here (default: model/llama/measureSpeed.ts, loaded in this process). */
  measure?: (file: ServedFile, threads: number) => Promise<Omit<SpeedMeasurement, 'model' | 'machine' | 'measuredAt'>>;
  /** The threads setting as the server resolves it (default: resolveThreads). */
  resolveThreads?: (configured: number) => number;
}

/**
 * Runs `model pull [NAME]`; prints the verified path on stdout; resolves with the exit code.
 * Without a name (or with `auto`) it pulls what `model: "auto"` picks here: on a machine not
 * measured yet, the smallest model first, then its speed is measured, then the pick if larger.
 */
export async function runModelPull(name: string | undefined, options: ModelOptions, deps: ModelDeps): Promise<number> {
  if (name !== undefined && name !== AUTO_MODEL) return printPulled(await pullOne(name, options, deps), deps);
  const catalog = deps.catalog ?? MODEL_CATALOG;
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env: deps.env });
  const threads = threadsOf(options, deps);
  let choice = chooseAutoModelHere(cacheDir, threads, catalog);
  if (choice.unmeasured) {
    const first = await pullOne(choice.model, options, deps);
    if (!first.ok) return EXIT_FAILURE;
    await measureAndKeep(choice.model, first.path, cacheDir, threads, deps);
    choice = chooseAutoModelHere(cacheDir, threads, catalog);
    if (choice.unmeasured) return printPulled(first, deps);
  }
  deps.output.err(`auto: ${choice.reason}`);
  return printPulled(await pullOne(choice.model, options, deps), deps);
}

type Pulled = { ok: true; path: string } | { ok: false };

async function pullOne(model: string, options: ModelOptions, deps: ModelDeps): Promise<Pulled> {
  const now = deps.now ?? Date.now;
  const started = now();
  const pull = deps.pull ?? pullCatalogModel;
  const outcome = await pull(model, {
    cacheDir: options.cacheDir, env: deps.env, progress: deps.progress, signal: deps.signal, reverify: options.verify,
  }, deps.catalog ?? MODEL_CATALOG);
  if (outcome.kind === 'error') {
    deps.output.err(`error (${outcome.code}): ${outcome.message}`);
    return { ok: false };
  }
  const seconds = ((now() - started) / 1000).toFixed(1);
  const how = outcome.source === 'cache' ? 'already in the cache' : `fetched from ${outcome.source}`;
  deps.output.err(`${model}: ${how}, SHA-256 verified, ${formatMegabytes(outcome.sizeBytes)}, ${seconds} s`);
  if (outcome.derived) {
    deps.output.err(`${model}+control: ${outcome.derived.made ? 'made with' : 'already made with'} the repository's control pack, SHA-256 verified: ${outcome.derived.path}`);
  }
  if (outcome.adapter) {
    deps.output.err(`${model}+lora: the repository's adapter for it, SHA-256 verified, applied when the server loads the model: ${outcome.adapter.path}`);
  }
  return { ok: true, path: outcome.path };
}

function printPulled(pulled: Pulled, deps: ModelDeps): number {
  if (!pulled.ok) return EXIT_FAILURE;
  deps.output.out(pulled.path);
  return EXIT_OK;
}

/**
 * Runs `model speed [NAME...]`: measures the named catalog models (default: every one pulled)
 * on this machine, keeps the result for `model: "auto"`, and prints what each would cost and
 * which `auto` picks. A model not pulled is skipped, with the pull hint.
 */
export async function runModelSpeed(names: readonly string[], options: ModelOptions, deps: ModelDeps): Promise<number> {
  const catalog = deps.catalog ?? MODEL_CATALOG;
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env: deps.env });
  const threads = threadsOf(options, deps);
  const wanted = names.length > 0 ? names : catalog.map((entry) => entry.name);
  let failed = false;
  for (const name of wanted) {
    const cached = cachedModelPath(name, cacheDir, catalog);
    if (cached.kind === 'error') {
      deps.output.err(`error (${cached.code}): ${cached.message}`);
      failed = true;
    } else if (!cached.verified) {
      if (names.length > 0) {
        deps.output.err(`${name} is not pulled; ${pullHint(name)}`);
        failed = true;
      }
    } else if (!(await measureAndKeep(name, cached.path, cacheDir, threads, deps))) {
      failed = true;
    }
  }
  printChoice(chooseAutoModelHere(cacheDir, threads, catalog), threads, deps);
  return failed ? EXIT_FAILURE : EXIT_OK;
}

/** Measures one model and keeps the result; says what it measured, or why it could not. */
async function measureAndKeep(model: string, modelPath: string, cacheDir: string, threads: number, deps: ModelDeps): Promise<boolean> {
  deps.output.err(`measuring ${model} on ${threads} thread(s), as the server runs it (a few seconds; run it on an idle machine)...`);
  try {
    const measure = deps.measure ?? measureWithLlama;
    const file = servedFile(model, modelPath, cacheDir);
    const measured = {
      ...(await measure(file, threads)), model, machine: machineKey(), ...(file.adapterSha256 ? { adapter: file.adapterSha256 } : {}),
      measuredAt: new Date((deps.now ?? Date.now)()).toISOString(),
    };
    saveSpeedMeasurement(cacheDir, measured);
    deps.output.err(`${model}: load ${(measured.loadMs / 1000).toFixed(1)} s, ${Math.round(measured.promptTokensPerSecond)} prompt tok/s ` +
      `(${Math.round(measured.shortPromptTokensPerSecond)} on a short prompt), ${measured.generatedTokensPerSecond.toFixed(1)} generated tok/s ` +
      `(${measured.runtime}, load average ${measured.loadAverage.toFixed(1)})`);
    return true;
  } catch (error) {
    deps.output.err(`error: could not measure ${model}: ${(error as Error).message}`);
    return false;
  }
}

function printChoice(choice: AutoChoice, threads: number, deps: ModelDeps): void {
  for (const p of choice.predictions) {
    deps.output.out(`${p.model}: keystroke ~${Math.round(p.keystrokeMs)} ms, cold start ~${(p.coldStartMs / 1000).toFixed(1)} s ` +
      `(${p.basis}; targets ${LATENCY_TARGETS.keystrokeMs} ms, ${LATENCY_TARGETS.coldStartMs / 1000} s)`);
  }
  deps.output.out(`auto (${threads} threads): ${choice.reason}`);
}

/** The file the server loads for a pulled catalog model, and the adapter it loads with (cacheDir.ts servedAdapter). */
export interface ServedFile {
  path: string;
  adapterPath?: string;
  adapterSha256?: string;
  hashPinned: boolean;
}

/** Both are verified against their pins, so they load as the server loads them (hashPinned: checked beside the load). */
function servedFile(model: string, pulledPath: string, cacheDir: string): ServedFile {
  const adapter = servedAdapter(model, cacheDir);
  const derived = cachedDerivedModel(model, cacheDir);
  const file = derived?.verified ? derived.path : pulledPath;
  return { path: file, hashPinned: true, ...(adapter ? { adapterPath: adapter.path, adapterSha256: adapter.sha256 } : {}) };
}

async function measureWithLlama(file: ServedFile, threads: number): Promise<Omit<SpeedMeasurement, 'model' | 'machine' | 'measuredAt'>> {
  // Loaded only here: the other model commands never start llama.cpp.
  const { measureModelSpeed } = await import('../model/llama/measureSpeed.js');
  return measureModelSpeed({ ...file, threads }, createStreamLogger('reposhapley', 'warn'));
}

function threadsOf(options: ModelOptions, deps: Pick<ModelDeps, 'resolveThreads'>): number {
  return (deps.resolveThreads ?? resolveThreads)(options.threads ?? 0);
}

/** Runs `model list`: one line per catalog model, the one `model: auto` picks here marked with `*`. */
export function runModelList(options: ModelOptions, deps: Pick<ModelDeps, 'output' | 'env' | 'catalog' | 'resolveThreads'>): number {
  const catalog = deps.catalog ?? MODEL_CATALOG;
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env: deps.env });
  const picked = chooseAutoModelHere(cacheDir, threadsOf(options, deps), catalog);
  const width = Math.max(...catalog.map((entry) => entry.name.length));
  for (const entry of catalog) {
    const cached = cachedModelPath(entry.name, cacheDir, catalog);
    const state = cached.kind === 'ok' && cached.verified ? 'cached' : cached.kind === 'ok' && cached.exists ? 'unverified' : 'not cached';
    const mark = entry.name === picked.model ? '*' : ' ';
    deps.output.out(`${mark} ${entry.name.padEnd(width)}  ${formatMegabytes(entry.sizeBytes).padStart(9)}  ${entry.license}  ${state.padEnd(10)}  ${entry.description}`);
  }
  deps.output.out(`(* = what model "auto" picks here: ${picked.reason}; cache: ${cacheDir})`);
  return EXIT_OK;
}

/**
 * Runs `model path [NAME]`: the verified cached file's path, else exit 2 with the pull hint.
 * Without a name (or `auto`), the model `auto` picks here.
 */
export function runModelPath(name: string | undefined, options: ModelOptions, deps: Pick<ModelDeps, 'output' | 'env' | 'catalog' | 'resolveThreads'>): number {
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env: deps.env });
  const model = name !== undefined && name !== AUTO_MODEL ? name : chooseAutoModelHere(cacheDir, threadsOf(options, deps), deps.catalog ?? MODEL_CATALOG).model;
  const cached = cachedModelPath(model, cacheDir, deps.catalog ?? MODEL_CATALOG);
  if (cached.kind === 'error') {
    deps.output.err(`error (${cached.code}): ${cached.message}`);
    return EXIT_FAILURE;
  }
  if (cached.verified) {
    deps.output.out(cached.path);
    return EXIT_OK;
  }
  const state = cached.exists ? `${cached.path} is not verified` : `${model} is not in the cache (${cacheDir})`;
  deps.output.err(`${state}; ${pullHint(model)}`);
  return EXIT_NO_MODEL;
}
