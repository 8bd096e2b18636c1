/**
 * Where pulled models live: a per-user cache, never the repository or node_modules.
 * Everything here is synchronous and cheap (no hashing), so the language server can call it at
 * start-up.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { adapterPackFile, adapterPackManifest, type AdapterPack } from './adapterPack.js';
import { controlPackManifest, controlPacksDir, type ControlPack } from './controlPack.js';
import { MODEL_CATALOG, resolveCatalogModel, type CatalogEntry } from './catalog.js';
import { hasVerifiedMark } from './sidecar.js';

/** Inputs of {@link resolveCacheDir}; all optional. */
export interface CacheDirOptions {
  /** An explicit directory (`--cache-dir`): overrides everything. */
  cacheDir?: string;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Defaults to os.homedir(). */
  homeDir?: string;
}

/**
 * The model cache directory: the explicit option, else `$REPOSHAPLEY_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/reposhapley/models` (absolute values only, as the XDG spec says), else
 * `~/.cache/reposhapley/models`. Always an absolute path; the directory may not exist yet.
 */
export function resolveCacheDir(options: CacheDirOptions = {}): string {
  const env = options.env ?? process.env;
  if (options.cacheDir) return path.resolve(options.cacheDir);
  if (env.REPOSHAPLEY_CACHE_DIR) return path.resolve(env.REPOSHAPLEY_CACHE_DIR);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'reposhapley', 'models');
  return path.join(options.homeDir ?? homedir(), '.cache', 'reposhapley', 'models');
}

/** Where a catalog model is (or would be) in the cache. */
export interface CachedModel {
  kind: 'ok';
  entry: CatalogEntry;
  /** The final path of the model file. */
  path: string;
  /** The file is there (verified or not). */
  exists: boolean;
  /**
   * The file is there and its sidecar says it hashed to the catalog pin at its current size and
   * mtime. Only a verified file should be loaded; otherwise ask the user to run `model pull`.
   */
  verified: boolean;
}

/**
 * The cache path of catalog model `name` and whether it exists and is verified, or the
 * not-in-catalog error listing the known names. No hashing: a stat or two and a tiny read.
 */
export function cachedModelPath(
  name: string,
  cacheDir?: string,
  catalog: readonly CatalogEntry[] = MODEL_CATALOG,
): CachedModel | { kind: 'error'; code: 'not-in-catalog'; message: string } {
  const lookup = resolveCatalogModel(name, catalog);
  if (lookup.kind === 'error') return lookup;
  const file = path.join(resolveCacheDir({ cacheDir }), lookup.entry.fileName);
  const verified = hasVerifiedMark(file, lookup.entry.sha256);
  return { kind: 'ok', entry: lookup.entry, path: file, exists: verified || existsSync(file), verified };
}

/** The working directory of one model's downloads (wheels, partial URL downloads). */
export function downloadsDir(cacheDir: string, name: string): string {
  return path.join(cacheDir, '.downloads', name);
}

/** The hint every "not cached" message ends with. */
export function pullHint(name: string): string {
  return `run "reposhapley model pull ${name}" to download it`;
}

/** The model a control pack derives from catalog model `name`, when the repository has a pack. */
export interface DerivedModel {
  path: string;
  verified: boolean;
  /** Whether the pack's rows are trained (an untrained pack's model behaves as the base does). */
  trained: boolean;
  /** The pack's LoRA adapter, applied with the derived model, if it has one. */
  adapterPath?: string;
}

/**
 * The derived model of catalog model `name` in the cache (controlPack.ts), or undefined when the
 * repository has no pack for it or the pack cannot be read (`model pull` reports that). Reads
 * only the pack's manifest, through `manifest` (the server memoizes it: packs are part of the install).
 */
export function cachedDerivedModel(
  name: string, cacheDir?: string, manifest: (name: string) => ControlPack | undefined = (n) => controlPackManifest(n),
): DerivedModel | undefined {
  const pack = manifest(name);
  if (!pack) return undefined;
  const file = path.join(resolveCacheDir({ cacheDir }), pack.derived.fileName);
  return {
    path: file, verified: hasVerifiedMark(file, pack.derived.sha256), trained: pack.trained,
    ...(pack.adapter ? { adapterPath: path.join(controlPacksDir(), name, pack.adapter.file) } : {}),
  };
}

/** Pack manifests by catalog name, read once: packs are part of the install. */
const manifests = new Map<string, { control?: ControlPack; adapter?: AdapterPack }>();

/** A control pack, or else an adapter pack trained on the file the catalog pins (none trained on another). */
function packsOf(name: string): { control?: ControlPack; adapter?: AdapterPack } {
  let packs = manifests.get(name);
  if (!packs) {
    const control = controlPackManifest(name);
    const adapter = control ? undefined : adapterPackManifest(name);
    const entry = MODEL_CATALOG.find((candidate) => candidate.name === name);
    packs = control ? { control } : adapter && adapter.base.sha256 === entry?.sha256 ? { adapter } : {};
    manifests.set(name, packs);
  }
  return packs;
}

/**
 * The LoRA adapter an adapter pack (adapterPack.ts) trained for catalog model `name`, applied to
 * its base file as pulled: undefined when the repository has none, or one trained on another
 * file than the catalog pins. Reads only the pack's manifest, once.
 */
export function baseModelAdapter(name: string): string | undefined {
  const { adapter } = packsOf(name);
  return adapter ? adapterPackFile(name, adapter) : undefined;
}

/**
 * The LoRA adapter catalog model `name` is served with from `cacheDir` now: its control pack's
 * when the derived file is made and verified, else its adapter pack's on the base (where it has no
 * control pack); undefined for none. The speed measurement records its pin, and `auto` counts only
 * measurements made with what is served.
 */
export function servedAdapter(name: string, cacheDir: string): { path: string; sha256: string } | undefined {
  const { control, adapter } = packsOf(name);
  if (adapter) return { path: adapterPackFile(name, adapter), sha256: adapter.adapter.sha256 };
  const derived = cachedDerivedModel(name, cacheDir, () => control);
  return derived?.verified && derived.adapterPath && control?.adapter ? { path: derived.adapterPath, sha256: control.adapter.sha256 } : undefined;
}
