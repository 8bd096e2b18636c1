/**
 * Fetches Debian packages as source trees: `apt-get download NAME` into a cache, `dpkg -x`
 * into `pkgs/NAME/`, and lists the package's Python module roots. The bench uses it for its
 * benchmark repositories and the corpus builder (models/corpus) for training packages, so
 * both read exactly the same files. Nothing is installed; root is not needed.
 *
 * Idempotent: a package whose .deb is in the cache is not downloaded again, and one already
 * unpacked (marked by a `.complete` file, written last) is not unpacked again.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Where Debian puts the modules of `python3-*` packages, relative to the unpacked root. */
export const DIST_PACKAGES = 'usr/lib/python3/dist-packages';

/** Result of one external command. `code` is null when the program could not be started. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (e.g. ENOENT: not installed). */
  spawnError?: NodeJS.ErrnoException;
}

/** Runs external programs; tests pass a fake. */
export interface CommandRunner {
  run(program: string, args: readonly string[], options: { cwd: string }): Promise<CommandResult>;
}

/** Why a package could not be fetched. */
export type DebianPackageErrorKind = 'apt-unavailable' | 'dpkg-unavailable' | 'not-found' | 'download-failed' | 'extract-failed';

/** A package could not be fetched; `kind` says why and the message says how to fix it. */
export class DebianPackageError extends Error {
  constructor(readonly kind: DebianPackageErrorKind, readonly packageName: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DebianPackageError';
  }
}

/** A fetched and unpacked package. */
export interface DebianPackage {
  name: string;
  /** Version from the .deb file name (epoch colon restored), e.g. "2.28.1+dfsg-1". */
  version: string;
  debPath: string;
  /** The unpacked tree (`pkgs/NAME`). */
  rootDir: string;
  /** Absolute paths of the package's top-level Python packages (dirs) and single modules (.py), sorted. */
  moduleRoots: string[];
}

export interface FetchOptions {
  /** Cache root; default {@link defaultCacheDir}. Debs go to `debs/`, trees to `pkgs/`. */
  cacheDir?: string;
  runner?: CommandRunner;
}

/** `${REPOSHAPLEY_CACHE:-~/.cache/reposhapley}`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REPOSHAPLEY_CACHE && env.REPOSHAPLEY_CACHE.length > 0
    ? path.resolve(env.REPOSHAPLEY_CACHE)
    : path.join(os.homedir(), '.cache', 'reposhapley');
}

/** Package names from a list file: one per line, `#` comments and blank lines ignored. */
export function parsePackageList(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line.length > 0);
}

/** Download (if needed), unpack (if needed) and describe one package. */
export async function fetchDebianPackage(name: string, options: FetchOptions = {}): Promise<DebianPackage> {
  if (!/^[a-z0-9][a-z0-9+.-]+$/.test(name)) throw new RangeError(`not a Debian package name: ${JSON.stringify(name)}`);
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const runner = options.runner ?? nodeCommandRunner;
  const debPath = await ensureDeb(name, path.join(cacheDir, 'debs'), runner);
  const rootDir = path.join(cacheDir, 'pkgs', name);
  await ensureUnpacked(name, debPath, rootDir, runner);
  return { name, version: versionOfDeb(name, debPath), debPath, rootDir, moduleRoots: await listModuleRoots(rootDir) };
}

/**
 * Like {@link fetchDebianPackage}, but when the package holds no Python modules and is only a
 * dependency package (python3-h5py depends on python3-h5py-serial | python3-h5py-mpi), fetch
 * the first dependency named `NAME-*` instead and describe that one; `name` stays the asked
 * name and `providedBy` names the package the code came from.
 */
export async function fetchCodePackage(name: string, options: FetchOptions = {}): Promise<DebianPackage & { providedBy?: string }> {
  const pkg = await fetchDebianPackage(name, options);
  if (pkg.moduleRoots.length > 0) return pkg;
  const runner = options.runner ?? nodeCommandRunner;
  const result = await runner.run('dpkg-deb', ['-f', pkg.debPath, 'Depends'], { cwd: path.dirname(pkg.debPath) });
  if (result.code !== 0) return pkg;
  const target = dependencyAlternatives(result.stdout).find((alt) => alt.startsWith(`${name}-`));
  if (!target) return pkg;
  const code = await fetchDebianPackage(target, options);
  return { ...code, name, version: `${target}=${code.version}`, providedBy: target };
}

/** Package names in a Depends field, alternatives in order, versions and arch qualifiers dropped. */
export function dependencyAlternatives(depends: string): string[] {
  return depends
    .split(/[,|]/)
    .map((part) => part.trim().split(/[\s(:]/)[0] ?? '')
    .filter((part) => part.length > 0);
}

/** Fetch several packages one after another (apt and dpkg hold locks; parallelism buys little). */
export async function fetchDebianPackages(names: readonly string[], options: FetchOptions = {}): Promise<DebianPackage[]> {
  const fetched: DebianPackage[] = [];
  for (const name of names) fetched.push(await fetchDebianPackage(name, options));
  return fetched;
}

async function ensureDeb(name: string, debsDir: string, runner: CommandRunner): Promise<string> {
  await mkdir(debsDir, { recursive: true });
  const cached = await findDeb(name, debsDir);
  if (cached) return cached;
  const result = await runner.run('apt-get', ['download', name], { cwd: debsDir });
  if (result.spawnError || result.code === null) {
    throw new DebianPackageError('apt-unavailable', name,
      `cannot run apt-get to download ${name} (${result.spawnError?.code ?? 'not started'}): this needs a Debian or Ubuntu ` +
      `machine with apt; or put ${name}_*.deb into ${debsDir} by hand`, { cause: result.spawnError });
  }
  if (result.code !== 0) {
    const missing = /unable to locate package|has no installation candidate|can't select candidate|no packages found/i.test(result.stderr);
    throw new DebianPackageError(missing ? 'not-found' : 'download-failed', name,
      missing
        ? `Debian package ${name} not found by apt-get (run 'apt-get update' first; check the name with 'apt-cache policy ${name}'): ${lastLine(result.stderr)}`
        : `apt-get download ${name} failed (exit ${result.code}): ${lastLine(result.stderr)}`);
  }
  const downloaded = await findDeb(name, debsDir);
  if (!downloaded) throw new DebianPackageError('download-failed', name, `apt-get download ${name} succeeded but no ${name}_*.deb is in ${debsDir}`);
  return downloaded;
}

/** `NAME_VERSION_ARCH.deb`; the underscore keeps `python3-h2` from matching `python3-h2o`. */
async function findDeb(name: string, debsDir: string): Promise<string | undefined> {
  const files = (await readdir(debsDir)).filter((f) => f.startsWith(`${name}_`) && f.endsWith('.deb')).sort();
  return files.length > 0 ? path.join(debsDir, files[files.length - 1]!) : undefined;
}

function versionOfDeb(name: string, debPath: string): string {
  const parts = path.basename(debPath, '.deb').slice(name.length + 1).split('_');
  return decodeURIComponent(parts[0] ?? '');
}

const COMPLETE_MARKER = '.complete';

async function ensureUnpacked(name: string, debPath: string, rootDir: string, runner: CommandRunner): Promise<void> {
  if (await exists(path.join(rootDir, COMPLETE_MARKER))) return;
  // Unpack beside the target and rename, so an interrupted run never leaves a tree that looks done.
  const partial = `${rootDir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const result = await runner.run('dpkg', ['-x', debPath, partial], { cwd: path.dirname(rootDir) });
  if (result.spawnError || result.code === null) {
    await rm(partial, { recursive: true, force: true });
    throw new DebianPackageError('dpkg-unavailable', name, `cannot run dpkg to unpack ${debPath}: install dpkg (Debian's base system has it)`, { cause: result.spawnError });
  }
  if (result.code !== 0) {
    await rm(partial, { recursive: true, force: true });
    throw new DebianPackageError('extract-failed', name, `dpkg -x ${debPath} failed (exit ${result.code}): ${lastLine(result.stderr)}; delete the .deb to download it again`);
  }
  await writeFile(path.join(partial, COMPLETE_MARKER), `${path.basename(debPath)}\n`);
  await rm(rootDir, { recursive: true, force: true });
  await rename(partial, rootDir);
}

/**
 * Entries of dist-packages that hold the package's code: package directories and single .py
 * modules. Metadata (`*.dist-info`, `*.egg-info`), `__pycache__`, `.pth` files and compiled
 * extensions are not module roots.
 */
export async function listModuleRoots(rootDir: string): Promise<string[]> {
  const dist = path.join(rootDir, DIST_PACKAGES);
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dist, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries
    .filter((e) => isModuleRoot(e.name, e.isDirectory()))
    .map((e) => path.join(dist, e.name))
    .sort();
}

function isModuleRoot(name: string, isDirectory: boolean): boolean {
  if (isDirectory) return !/\.(dist|egg)-info$/.test(name) && name !== '__pycache__' && !name.startsWith('.');
  return name.endsWith('.py');
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

/** The real runner: `execFile`, never a shell. */
export const nodeCommandRunner: CommandRunner = {
  run(program, args, options) {
    return new Promise((resolve) => {
      execFile(program, [...args], { cwd: options.cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const errno = error as (NodeJS.ErrnoException & { code?: unknown }) | null;
        if (errno && typeof errno.code === 'string') {
          resolve({ code: null, stdout: String(stdout), stderr: String(stderr), spawnError: errno });
        } else {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
        }
      });
    });
  },
};
