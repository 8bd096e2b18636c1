/**
 * What import resolution reads of `go.mod` and `go.work`: the module path, local `replace`
 * targets and a workspace's `use` directories. Only the directive syntax is parsed (lines,
 * `verb ( … )` blocks, `//` comments, quoted tokens); versions and requirements are ignored,
 * since only modules inside the workspace can resolve.
 */
import * as path from 'node:path';
import { parsedByText } from '../configFiles.js';

/** One directive: `module example.com/m` -> { verb: 'module', args: ['example.com/m'] }. */
interface Directive {
  verb: string;
  args: string[];
}

/** What a go.mod says about where packages live. */
export interface GoModFile {
  /** The `module` path; undefined when the file has none (a broken go.mod). */
  modulePath?: string;
  /** `replace old => ./dir`: module path -> directory relative to the go.mod's own. */
  replacements: { modulePath: string; dir: string }[];
}

/** The module path and local replacements of a go.mod's text (kept by text: one go.mod is read for every import below it). */
export const readGoMod = parsedByText((text): GoModFile => {
  const directives = parseDirectives(text);
  const modulePath = directives.find((d) => d.verb === 'module')?.args[0];
  const replacements = directives.filter((d) => d.verb === 'replace').flatMap((d) => localReplacement(d.args));
  return modulePath ? { modulePath, replacements } : { replacements };
});

/** The directories a go.work `use`s, relative to the go.work's own. */
export const readGoWork = parsedByText((text): string[] => parseDirectives(text).filter((d) => d.verb === 'use' && d.args[0]).map((d) => d.args[0]!));

/** `old [v] => ./new` (or `../new`): the Go tool's rule for a local replacement; module targets are not ours. */
function localReplacement(args: string[]): { modulePath: string; dir: string }[] {
  const arrow = args.indexOf('=>');
  const target = args[arrow + 1];
  if (arrow < 1 || !target || !/^\.\.?(\/|$)/.test(target)) return [];
  return [{ modulePath: args[0]!, dir: target }];
}

/** Directives in order, those of a `verb ( … )` block each under the block's verb. */
function parseDirectives(text: string): Directive[] {
  const directives: Directive[] = [];
  let blockVerb: string | undefined;
  for (const line of text.split('\n')) {
    const tokens = tokenize(line);
    if (tokens.length === 0) continue;
    if (blockVerb !== undefined) {
      if (tokens[0] === ')') blockVerb = undefined;
      else directives.push({ verb: blockVerb, args: tokens });
    } else if (tokens[1] === '(' && tokens.length === 2) {
      blockVerb = tokens[0];
    } else {
      directives.push({ verb: tokens[0]!, args: tokens.slice(1) });
    }
  }
  return directives;
}

/** Whitespace-separated tokens of one line, `//` comment dropped, `"x"` and `` `x` `` unquoted. */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|`([^`]*)`|(\/\/.*)|([^\s"`]+)/g)) {
    if (match[3] !== undefined) break;
    const token = match[1] ?? match[2] ?? match[4];
    if (token !== undefined) tokens.push(match[1] !== undefined ? token.replace(/\\(.)/g, '$1') : token);
  }
  return tokens;
}

/** `dir` joined to a go.mod's or go.work's directory; undefined when it leaves the workspace root. */
export function joinModuleDir(base: string, dir: string): string | undefined {
  if (path.posix.isAbsolute(dir) || /^[A-Za-z]:[\\/]/.test(dir)) return undefined;
  const joined = path.posix.normalize(path.posix.join(base, dir));
  if (joined === '..' || joined.startsWith('../')) return undefined;
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}
