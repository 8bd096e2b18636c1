/**
 * What import resolution reads of a project's configuration: `compilerOptions.baseUrl` and
 * `paths` of the nearest tsconfig.json (or jsconfig.json), following relative `extends`, and what
 * a package.json says: its entry points (`exports`, `types`, `module`, `main`), its `imports` (`#`
 * specifiers) and its `workspaces`. Files are JSON with
 * comments and trailing commas; a file that does not parse counts as absent, never as an error.
 */
import * as path from 'node:path';
import { parse as parseJsoncText, type ParseError } from 'jsonc-parser';
import { objectOf, orUndefined, parsedByText, stringsOf } from '../configFiles.js';

/** Reads a project file by relPath from the workspace root; undefined when absent. */
export type ReadProjectFile = (relPath: string) => string | undefined;

/** `compilerOptions.paths`, `baseUrl` and where relative substitutions start, as relPaths. */
export interface PathMapping {
  /** Directory non-relative specifiers are also looked up in. */
  baseUrl?: string;
  paths?: Readonly<Record<string, readonly string[]>>;
  /** Substitutions are relative to `baseUrl` when set, else to the config file that defines `paths`. */
  pathsBase?: string;
}

const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'];
/** `extends` chains are short; a cycle or a long chain stops here. */
const MAX_EXTENDS_DEPTH = 4;

/** The path mapping of the config nearest to the importing file (its directory, then each parent). */
export function nearestPathMapping(fromRelPath: string, read: ReadProjectFile): PathMapping | undefined {
  for (let dir = path.posix.dirname(fromRelPath); ; dir = path.posix.dirname(dir)) {
    const base = dir === '.' ? '' : dir;
    for (const name of CONFIG_NAMES) {
      const configPath = base === '' ? name : `${base}/${name}`;
      const mapping = readPathMapping(configPath, read, 0, new Map());
      if (mapping) return mapping;
    }
    if (base === '') return undefined;
  }
}

/**
 * One config file with what it extends (later `extends` entries and the file itself win). Each
 * config is read once per lookup (`done`, which also ends cycles): `extends` may list a file
 * many times, and forty entries that name the config itself, four levels deep, were 2.5 million
 * calls (6 s of the server's thread).
 */
function readPathMapping(configPath: string, read: ReadProjectFile, depth: number, done: Map<string, PathMapping | undefined>): PathMapping | undefined {
  if (done.has(configPath)) return done.get(configPath);
  done.set(configPath, undefined); // While it is read, an `extends` back to it adds nothing.
  const mapping = readOneConfig(configPath, read, depth, done);
  done.set(configPath, mapping);
  return mapping;
}

function readOneConfig(configPath: string, read: ReadProjectFile, depth: number, done: Map<string, PathMapping | undefined>): PathMapping | undefined {
  const config = objectOf(parseJsonc(read(configPath)));
  if (!config) return undefined;
  const dir = dirOf(configPath);
  let mapping: PathMapping = {};
  const parents = typeof config.extends === 'string' ? [config.extends] : Array.isArray(config.extends) ? config.extends : [];
  for (const parent of parents) {
    // Only relative `extends`: shared configs in node_modules hold no paths of this workspace.
    if (depth >= MAX_EXTENDS_DEPTH || typeof parent !== 'string' || !parent.startsWith('.')) continue;
    const parentPath = path.posix.join(dir, parent.endsWith('.json') ? parent : `${parent}.json`);
    mapping = { ...mapping, ...readPathMapping(parentPath, read, depth + 1, done) };
  }
  const options = objectOf(config.compilerOptions);
  if (typeof options?.baseUrl === 'string') mapping.baseUrl = relPathOf(dir, options.baseUrl);
  const paths = objectOf(options?.paths);
  if (paths) {
    mapping.paths = Object.fromEntries(Object.entries(paths).map(([pattern, targets]) => [pattern, stringsOf(targets)]));
    mapping.pathsBase = dir;
  }
  return mapping;
}

/**
 * Where `paths` sends a specifier, then `baseUrl`: relPaths to look for as module paths. An exact
 * pattern wins over wildcards, and among wildcards the longest prefix, as in TypeScript.
 */
export function mappedModulePaths(specifier: string, mapping: PathMapping): string[] {
  const candidates: string[] = [];
  const base = mapping.baseUrl ?? mapping.pathsBase ?? '';
  const match = bestPattern(specifier, mapping.paths ?? {});
  if (match) {
    for (const target of mapping.paths![match.pattern]!) candidates.push(relPathOf(base, target.replace('*', match.star)));
  }
  if (mapping.baseUrl !== undefined) candidates.push(relPathOf(mapping.baseUrl, specifier));
  return candidates;
}

/** The key of `map` that `specifier` matches: itself, else the `*` pattern with the longest prefix. */
function bestPattern(specifier: string, map: Readonly<Record<string, unknown>>): { pattern: string; star: string } | undefined {
  if (map[specifier] !== undefined) return { pattern: specifier, star: '' };
  let best: { pattern: string; star: string; prefix: number } | undefined;
  for (const pattern of Object.keys(map)) {
    const star = starMatch(pattern, specifier);
    const prefix = pattern.indexOf('*');
    if (star !== undefined && (!best || prefix > best.prefix)) best = { pattern, star, prefix };
  }
  return best;
}

/** What the `*` of `prefix*suffix` stands for in `value`, if it matches. */
export function starMatch(pattern: string, value: string): string | undefined {
  const star = pattern.indexOf('*');
  if (star < 0) return undefined;
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  if (value.length < prefix.length + suffix.length || !value.startsWith(prefix) || !value.endsWith(suffix)) return undefined;
  return value.slice(prefix.length, value.length - suffix.length);
}

/** A package.json's name and the entry files it names, in the order they are worth trying. */
export interface PackageManifest {
  name?: string;
  exports?: unknown;
  /** Subpath imports: `#` specifiers and what they map to, as `exports` maps subpaths. */
  imports?: unknown;
  /** `types`, `typings`, `module`, `main`, as present. */
  entries: string[];
  /** The `workspaces` globs (an array, or Yarn's `{ "packages": [...] }`); empty when none. */
  workspaces: string[];
}

/** A package.json, or undefined when absent or not an object. */
export function readManifest(relPath: string, read: ReadProjectFile): PackageManifest | undefined {
  const json = objectOf(parseJsonc(read(relPath)));
  if (!json) return undefined;
  const entries = ['types', 'typings', 'module', 'main'].map((field) => json[field]).filter((value): value is string => typeof value === 'string');
  const workspaces = Array.isArray(json.workspaces) ? stringsOf(json.workspaces) : stringsOf(objectOf(json.workspaces)?.packages);
  const manifest: PackageManifest = { entries, exports: json.exports, imports: json.imports, workspaces };
  if (typeof json.name === 'string') manifest.name = json.name;
  return manifest;
}

/**
 * The targets `exports` gives a subpath (`.` or `./sub`): a string, a conditions object
 * (`import`, `require`, `types`, `default`, … in the order written), arrays, and `./*` patterns.
 */
export function exportTargets(exports: unknown, subpath: string): string[] {
  if (typeof exports === 'string' || Array.isArray(exports)) return subpath === '.' ? conditionTargets(exports) : [];
  const map = objectOf(exports);
  if (!map) return [];
  const keys = Object.keys(map);
  if (!keys.some((key) => key.startsWith('.'))) return subpath === '.' ? conditionTargets(map) : []; // Conditions for `.` alone.
  return subpathTargets(map, subpath);
}

/** The targets package.json `imports` gives a `#` specifier (`#utils/log`, through `#utils/*`). */
export function importTargets(imports: unknown, specifier: string): string[] {
  const map = objectOf(imports);
  return map ? subpathTargets(map, specifier) : [];
}

/** A subpath's targets in an `exports` or `imports` map: its own key, else the best `*` pattern. */
function subpathTargets(map: Readonly<Record<string, unknown>>, subpath: string): string[] {
  const match = bestPattern(subpath, map);
  return match ? conditionTargets(map[match.pattern]).map((target) => target.replace('*', match.star)) : [];
}

function conditionTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(conditionTargets);
  const conditions = objectOf(value);
  return conditions ? Object.values(conditions).flatMap(conditionTargets) : [];
}

/** JSON with `//` and `/* *\/` comments and trailing commas; undefined when absent or malformed. */
export function parseJsonc(text: string | undefined): unknown {
  return text === undefined ? undefined : parseJsoncOnce(text);
}

const parseJsoncOnce = parsedByText((text): unknown => {
  const errors: ParseError[] = [];
  // jsonc-parser recurses per level: a file nested tens of thousands deep overflows the stack.
  const tolerant = orUndefined((): unknown => parseJsoncText(text, errors, { allowTrailingComma: true, disallowComments: false }));
  // A config being edited is often invalid for a moment: treat it as absent rather than half-read.
  return errors.length > 0 ? undefined : tolerant;
});

function dirOf(relPath: string): string {
  const dir = path.posix.dirname(relPath);
  return dir === '.' ? '' : dir;
}

/** `dir` joined with a config-relative path, normalized (`''` for the root; may start with `..`). */
function relPathOf(dir: string, relative: string): string {
  const joined = path.posix.join(dir, relative);
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}
