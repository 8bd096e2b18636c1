/**
 * `reposhapley model pull|list|path`: fetch a catalog model into the per-user cache, show the
 * catalog, print a cached model's path. Results go to stdout, progress and problems to stderr.
 */
import { cachedModelPath, pullHint, resolveCacheDir } from '../modelStore/cacheDir.js';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG, type CatalogEntry } from '../modelStore/catalog.js';
import { formatMegabytes } from '../modelStore/outcome.js';
import type { TransferProgress } from '../modelStore/progress.js';
import { pullCatalogModel, type PullOptions } from '../modelStore/pull.js';
import type { PullOutcome } from '../modelStore/outcome.js';
import { EXIT_FAILURE, EXIT_NO_MODEL, EXIT_OK, type CliOutput } from './output.js';

/** Options of the `model` subcommands as commander parses them. */
export interface ModelOptions {
  cacheDir?: string;
  /** pull only: hash the cached file even when it is marked verified. */
  verify?: boolean;
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
}

/** Runs `model pull [NAME]`; prints the verified path on stdout; resolves with the exit code. */
export async function runModelPull(name: string | undefined, options: ModelOptions, deps: ModelDeps): Promise<number> {
  const model = name ?? DEFAULT_MODEL_NAME;
  const now = deps.now ?? Date.now;
  const started = now();
  const pull = deps.pull ?? pullCatalogModel;
  const outcome = await pull(model, {
    cacheDir: options.cacheDir, env: deps.env, progress: deps.progress, signal: deps.signal, reverify: options.verify,
  }, deps.catalog ?? MODEL_CATALOG);
  if (outcome.kind === 'error') {
    deps.output.err(`error (${outcome.code}): ${outcome.message}`);
    return EXIT_FAILURE;
  }
  const seconds = ((now() - started) / 1000).toFixed(1);
  const how = outcome.source === 'cache' ? 'already in the cache' : `fetched from ${outcome.source}`;
  deps.output.err(`${model}: ${how}, SHA-256 verified, ${formatMegabytes(outcome.sizeBytes)}, ${seconds} s`);
  if (outcome.derived) {
    deps.output.err(`${model}+control: ${outcome.derived.made ? 'made with' : 'already made with'} the repository's control pack, SHA-256 verified: ${outcome.derived.path}`);
  }
  deps.output.out(outcome.path);
  return EXIT_OK;
}

/** Runs `model list`: one line per catalog model, the default marked with `*`. */
export function runModelList(options: ModelOptions, deps: Pick<ModelDeps, 'output' | 'env' | 'catalog'>): number {
  const catalog = deps.catalog ?? MODEL_CATALOG;
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env: deps.env });
  const width = Math.max(...catalog.map((entry) => entry.name.length));
  for (const entry of catalog) {
    const cached = cachedModelPath(entry.name, cacheDir, catalog);
    const state = cached.kind === 'ok' && cached.verified ? 'cached' : cached.kind === 'ok' && cached.exists ? 'unverified' : 'not cached';
    const mark = entry.name === DEFAULT_MODEL_NAME ? '*' : ' ';
    deps.output.out(`${mark} ${entry.name.padEnd(width)}  ${formatMegabytes(entry.sizeBytes).padStart(9)}  ${entry.license}  ${state.padEnd(10)}  ${entry.description}`);
  }
  deps.output.out(`(* = default; cache: ${cacheDir})`);
  return EXIT_OK;
}

/** Runs `model path [NAME]`: the verified cached file's path, else exit 2 with the pull hint. */
export function runModelPath(name: string | undefined, options: ModelOptions, deps: Pick<ModelDeps, 'output' | 'env' | 'catalog'>): number {
  const model = name ?? DEFAULT_MODEL_NAME;
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env: deps.env });
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
