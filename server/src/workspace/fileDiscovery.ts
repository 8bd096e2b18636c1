/**
 * Finds the source files (of every registered language) of one or more workspace roots that are
 * worth indexing.
 * Two stages, so callers can count before they read: {@link walkSourceFiles} applies path rules
 * (vendored trees, .gitignore, symlinks) and {@link readCandidate} applies content rules
 * (size, binary, minified) and decodes. Nothing outside the roots is ever read.
 */
import * as path from 'node:path';
import { isSourcePath } from '../languages/registry.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { DEFAULT_CONTENT_LIMITS, checkFileBytes, isTooLarge, type ContentLimits } from './fileFilters.js';
import { defaultDiscoveryFs, reportSkip, skipForError, type DirEntry, type DiscoveryFs, type ExactRead, type SkippedPath } from './discoveryFs.js';
import { VENDORED_DIR_NAMES, ancestorDirs, gitignorePath, isGitignored, judgePath, parseGitignore, type GitignoreRules } from './pathRules.js';
import { isPathInside, locateInRoots, resolveRealPath, resolveRoots, type WorkspaceRoot } from './paths.js';

export type { SkippedPath } from './discoveryFs.js';

/** Options shared by every discovery entry point. */
export interface DiscoveryOptions {
  signal?: AbortSignal;
  logger?: Logger;
  fs?: DiscoveryFs;
  limits?: ContentLimits;
  /** Keys of skips already logged; share one set across runs so each skip is logged once. */
  reported?: Set<string>;
}

/** A source file that passed the path rules; its content is not read yet. */
export interface CandidateFile {
  root: WorkspaceRoot;
  /** Absolute path built from the root as given (what editors send back as URIs). */
  absPath: string;
  /** Where the bytes really are (symlinks resolved); always inside a root. */
  realPath: string;
  /** Relative to `root`, forward slashes. */
  relPath: string;
}

/** A file to index, with its decoded text. */
export interface DiscoveredFile extends CandidateFile {
  text: string;
}

/** What the walk yields: a file that passed the path rules, or a skip. */
export type WalkEvent = { kind: 'candidate'; file: CandidateFile } | { kind: 'skip'; skip: SkippedPath };
/** What discovery yields: a file to index with its text, or a skip. */
export type DiscoveryEvent = { kind: 'file'; file: DiscoveredFile } | { kind: 'skip'; skip: SkippedPath };
/** Reading one candidate: its text, or why it is skipped. */
export type ReadResult = { kind: 'file'; file: DiscoveredFile } | { kind: 'skip'; skip: SkippedPath };

/** How many reads {@link readInOrder} keeps in flight: enough to keep libuv's four threads busy. */
const READ_AHEAD = 8;

/** A directory being walked: where it is as given, where it really is, and the rules in force. */
interface DirVisit {
  root: WorkspaceRoot;
  abs: string;
  real: string;
  rel: string;
  rules: readonly GitignoreRules[];
}

interface WalkContext {
  roots: readonly WorkspaceRoot[];
  fs: DiscoveryFs;
  signal?: AbortSignal;
  /** Real paths of directories already walked: a second visit is a symlink cycle or alias. */
  visitedDirs: Set<string>;
  /** Real path -> relPath of files already yielded, so a symlinked alias is not indexed twice. */
  visitedFiles: Map<string, string>;
  /** Symlinks met during the walk, followed only after every real directory has been walked. */
  deferredLinks: { dir: DirVisit; entry: DirEntry }[];
  skip(skip: SkippedPath): WalkEvent;
}

function contextFor(roots: readonly WorkspaceRoot[], options: DiscoveryOptions): WalkContext {
  const logger = options.logger ?? silentLogger;
  const reported = options.reported ?? new Set<string>();
  return {
    roots, fs: options.fs ?? defaultDiscoveryFs, signal: options.signal,
    visitedDirs: new Set(), visitedFiles: new Map(), deferredLinks: [],
    skip: (skip) => ({ kind: 'skip', skip: reportSkip(skip, logger, reported) }),
  };
}

/**
 * Walk the roots depth-first in sorted name order (deterministic), yielding source files that pass
 * the path rules and a skip record for each excluded file or directory. Symlinks are followed last,
 * after every real directory: a link to something already walked is then recognised as an alias
 * (or a cycle) whatever the names, so files are indexed under their real location. Stops quietly
 * on abort.
 */
export async function* walkSourceFiles(roots: readonly WorkspaceRoot[], options: DiscoveryOptions = {}): AsyncGenerator<WalkEvent> {
  const ctx = contextFor(roots, options);
  for (const root of roots) {
    if (ctx.signal?.aborted) return;
    ctx.visitedDirs.add(root.real);
    yield* walkDir(ctx, { root, abs: root.path, real: root.real, rel: '', rules: [] });
  }
  for (let link = ctx.deferredLinks.shift(); link && !ctx.signal?.aborted; link = ctx.deferredLinks.shift()) {
    yield* visitEntry(ctx, link.dir, link.entry, true);
  }
}

async function* walkDir(ctx: WalkContext, dir: DirVisit): AsyncGenerator<WalkEvent> {
  let entries: DirEntry[];
  try {
    entries = await ctx.fs.readdir(dir.abs);
  } catch (error) {
    yield ctx.skip(skipForError(dir.abs, dir.rel, error));
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const withRules = { ...dir, rules: await withGitignore(ctx, entries, dir) };
  for (const entry of entries) {
    if (ctx.signal?.aborted) return;
    if (entry.isSymbolicLink()) ctx.deferredLinks.push({ dir: withRules, entry });
    else yield* visitEntry(ctx, withRules, entry, false);
  }
}

async function withGitignore(ctx: WalkContext, entries: DirEntry[], dir: DirVisit): Promise<readonly GitignoreRules[]> {
  if (!entries.some((e) => e.name === '.gitignore' && !e.isDirectory())) return dir.rules;
  try {
    const content = await readGitignore(ctx.fs, path.join(dir.real, '.gitignore'));
    return content === undefined ? dir.rules : [...dir.rules, parseGitignore(dir.rel, content)];
  } catch {
    return dir.rules; // An unreadable .gitignore excludes nothing, as with git.
  }
}

async function* visitEntry(ctx: WalkContext, dir: DirVisit, entry: DirEntry, isLink: boolean): AsyncGenerator<WalkEvent> {
  const absPath = path.join(dir.abs, entry.name);
  const relPath = dir.rel === '' ? entry.name : `${dir.rel}/${entry.name}`;
  const isSource = isSourcePath(entry.name);
  const target = isLink
    ? await resolveLink(ctx, absPath, relPath)
    : { type: entry.isDirectory() ? 'dir' as const : entry.isFile() ? 'file' as const : 'other' as const, real: path.join(dir.real, entry.name) };
  if ('skip' in target) {
    // Only symlinks get here. A dangling link to no source file was never going to be indexed: no noise.
    if (isSource || target.skip.reason !== 'unreadable') yield ctx.skip(target.skip);
    return;
  }
  if (target.type === 'dir') {
    const skip = directorySkip(ctx, dir.root, absPath, relPath, target.real, dir.rules);
    if (skip === 'nested-root') return;
    if (skip) {
      yield ctx.skip(skip);
      return;
    }
    ctx.visitedDirs.add(target.real);
    yield* walkDir(ctx, { root: dir.root, abs: absPath, real: target.real, rel: relPath, rules: dir.rules });
  } else if (target.type === 'file' && isSource) {
    yield fileEvent(ctx, dir.root, absPath, relPath, target.real, dir.rules);
  }
}

type ResolvedEntry = { type: 'dir' | 'file' | 'other'; real: string } | { skip: SkippedPath };

/** Where a symlink really points; followed (even stat'ed) only when that stays inside a root. */
async function resolveLink(ctx: WalkContext, absPath: string, relPath: string): Promise<ResolvedEntry> {
  try {
    const real = await ctx.fs.realpath(absPath);
    if (!ctx.roots.some((r) => isPathInside(real, r.real))) {
      return { skip: { absPath, relPath, reason: 'outside-workspace', detail: `symlink to ${real}` } };
    }
    const stat = await ctx.fs.stat(real);
    return { type: stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other', real };
  } catch (error) {
    return { skip: skipForError(absPath, relPath, error) };
  }
}

function directorySkip(
  ctx: WalkContext, root: WorkspaceRoot, absPath: string, relPath: string, real: string, rules: readonly GitignoreRules[],
): SkippedPath | 'nested-root' | undefined {
  // A directory that is itself a root is walked as that root, so its files get its relPaths.
  if (ctx.roots.some((r) => r !== root && r.real === real)) return 'nested-root';
  const name = path.basename(absPath);
  if (VENDORED_DIR_NAMES.has(name)) return { absPath, relPath, reason: 'vendored-or-generated-directory', detail: `${name}/` };
  if (isGitignored(rules, relPath, true)) return { absPath, relPath, reason: 'ignored-by-gitignore', detail: 'directory matched a .gitignore rule' };
  if (ctx.visitedDirs.has(real)) {
    return { absPath, relPath, reason: 'symlink-loop', detail: `directory ${real} is already being walked (symlink cycle or alias)` };
  }
  return undefined;
}

function fileEvent(
  ctx: WalkContext, root: WorkspaceRoot, absPath: string, relPath: string, real: string, rules: readonly GitignoreRules[],
): WalkEvent {
  if (isGitignored(rules, relPath, false)) return ctx.skip({ absPath, relPath, reason: 'ignored-by-gitignore', detail: 'matched a .gitignore rule' });
  const seenAs = ctx.visitedFiles.get(real);
  if (seenAs !== undefined) return ctx.skip({ absPath, relPath, reason: 'symlink-loop', detail: `same file as ${seenAs}` });
  ctx.visitedFiles.set(real, relPath);
  return { kind: 'candidate', file: { root, absPath, realPath: real, relPath } };
}

/** Read a candidate and apply the content rules; missing or unreadable files are skips, never throws. */
export async function readCandidate(file: CandidateFile, options: DiscoveryOptions = {}): Promise<ReadResult> {
  const fs = options.fs ?? defaultDiscoveryFs;
  const limits = options.limits ?? DEFAULT_CONTENT_LIMITS;
  const skip = (s: SkippedPath): ReadResult => ({ kind: 'skip', skip: reportSkip(s, options.logger ?? silentLogger, options.reported ?? new Set()) });
  try {
    const read = await readBytes(fs, file.realPath, limits);
    if (read.kind === 'not-file') return skip({ absPath: file.absPath, relPath: file.relPath, reason: 'unreadable', detail: 'not a regular file' });
    if (read.kind === 'too-large') {
      return skip({ absPath: file.absPath, relPath: file.relPath, reason: 'too-large', detail: `${read.size} bytes > ${limits.maxBytes}` });
    }
    if (read.kind === 'moved') {
      return skip({ absPath: file.absPath, relPath: file.relPath, reason: 'outside-workspace', detail: `changed while being opened: it led to ${read.opened}` });
    }
    const check = checkFileBytes(read.bytes, limits);
    if (check.kind === 'skip') return skip({ absPath: file.absPath, relPath: file.relPath, reason: check.reason, detail: check.detail });
    return { kind: 'file', file: { ...file, text: check.text } };
  } catch (error) {
    return skip(skipForError(file.absPath, file.relPath, error));
  }
}

/**
 * Files read in their order, with up to `depth` reads in flight: a read is five file-system calls
 * through libuv's thread pool, and with only the next file ahead, small files (5 KB of TypeScript
 * parse in less time than their read takes) left the indexer waiting on the disk.
 * A consumer that stops early leaves the reads in flight to finish unseen; none can reject.
 */
export async function* readInOrder(
  files: readonly CandidateFile[], options: DiscoveryOptions = {}, depth = READ_AHEAD,
): AsyncGenerator<ReadResult> {
  const inFlight: Promise<ReadResult>[] = [];
  let started = 0;
  while (started < files.length || inFlight.length > 0) {
    while (started < files.length && inFlight.length < depth) inFlight.push(readCandidate(files[started++]!, options));
    yield await inFlight.shift()!;
  }
}

/**
 * A `.gitignore` (`file` under a real directory path), read as sources are where the port can: a
 * symlink, a FIFO or anything but a plain file is not read (a FIFO would hold one of libuv's four
 * threads for good, and a symlink may lead outside the workspace). Throws when absent or unreadable.
 */
async function readGitignore(fs: DiscoveryFs, file: string): Promise<string | undefined> {
  if (!fs.readExact) return new TextDecoder().decode(await fs.readFile(file));
  const read = await fs.readExact(file, (size) => isTooLarge(size));
  return read.kind === 'ok' ? new TextDecoder().decode(read.bytes) : undefined;
}

/** A candidate's bytes: opened then checked where the port can, else stat first so a huge file is never read. */
async function readBytes(fs: DiscoveryFs, realPath: string, limits: ContentLimits): Promise<ExactRead> {
  if (fs.readExact) return fs.readExact(realPath, (size) => isTooLarge(size, limits));
  const stat = await fs.stat(realPath);
  if (!stat.isFile()) return { kind: 'not-file' };
  if (isTooLarge(stat.size, limits)) return { kind: 'too-large', size: stat.size };
  return { kind: 'ok', bytes: await fs.readFile(realPath) };
}

/** Walk and read in one pass: the files to index, in deterministic order, and every skip. */
export async function* discoverSourceFiles(roots: readonly string[], options: DiscoveryOptions = {}): AsyncGenerator<DiscoveryEvent> {
  const shared = { ...options, reported: options.reported ?? new Set<string>() };
  for await (const event of walkSourceFiles(await resolveRoots(roots), shared)) {
    if (event.kind === 'skip') yield event;
    else yield await readCandidate(event.file, shared);
  }
}

/** Everything {@link discoverSourceFiles} finds, collected; `cancelled` when the signal fired. */
export async function discoverAll(
  roots: readonly string[], options: DiscoveryOptions = {},
): Promise<{ files: DiscoveredFile[]; skipped: SkippedPath[]; cancelled: boolean }> {
  const files: DiscoveredFile[] = [];
  const skipped: SkippedPath[] = [];
  for await (const event of discoverSourceFiles(roots, options)) {
    if (event.kind === 'file') files.push(event.file);
    else skipped.push(event.skip);
  }
  return { files, skipped, cancelled: options.signal?.aborted ?? false };
}

/**
 * Judge and read one file the way the walk would (for watcher events): outside the roots,
 * of no registered language, vendored, ignored by any .gitignore on its path, or failing the content rules.
 */
export async function discoverSingleFile(absPath: string, roots: readonly WorkspaceRoot[], options: DiscoveryOptions = {}): Promise<ReadResult> {
  const fs = options.fs ?? defaultDiscoveryFs;
  const report = (s: SkippedPath): ReadResult => ({ kind: 'skip', skip: reportSkip(s, options.logger ?? silentLogger, options.reported ?? new Set()) });
  const real = await resolveRealPath(absPath, (p) => fs.realpath(p));
  const located = locateInRoots(absPath, roots, () => real);
  if (!located) return report({ absPath, relPath: '', reason: 'outside-workspace', detail: `${real} is outside every root` });
  const { root, relPath } = located;
  if (!isSourcePath(relPath)) return report({ absPath, relPath, reason: 'not-source', detail: 'no registered language reads it' });
  const gitignores = new Map<string, string | undefined>();
  for (const dir of ancestorDirs(relPath)) {
    gitignores.set(dir, await readGitignore(fs, gitignorePath(root.real, dir)).catch(() => undefined));
  }
  const verdict = judgePath(relPath, gitignores);
  if (verdict) return report({ absPath, relPath, ...verdict });
  return readCandidate({ root, absPath, realPath: real, relPath }, options);
}
