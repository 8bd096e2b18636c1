/**
 * Which paths are never indexed, whatever their content: vendored or generated trees (by path
 * component) and whatever `.gitignore` files exclude. Used by the directory walk and by the
 * single-file checks (watcher events, open documents) so both judge a path the same way.
 */
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { SKIPPED_DIRECTORY_NAMES } from '../languages/registry.js';

/**
 * Directory names whose subtrees are third-party, generated or tool state, never project code:
 * these, and each registered language's own (`target/`, `__pycache__/`).
 */
export const VENDORED_DIR_NAMES: ReadonlySet<string> = new Set([
  'vendor', '_vendor', 'third_party', 'dist', 'build', 'node_modules', '.git', ...SKIPPED_DIRECTORY_NAMES,
]);

/** The first vendored/generated component of a root-relative path, if any (the root's own path is never judged). */
export function vendoredComponent(relPath: string, isDirectory = false): string | undefined {
  const parts = relPath.split('/');
  const dirs = isDirectory ? parts : parts.slice(0, -1);
  return dirs.find((part) => VENDORED_DIR_NAMES.has(part));
}

/** The rules of one `.gitignore`, anchored at its directory (root-relative, '' for the root). */
export interface GitignoreRules {
  base: string;
  matcher: Ignore;
}

/** Parse a `.gitignore` found in directory `base` (root-relative). */
export function parseGitignore(base: string, content: string): GitignoreRules {
  return { base, matcher: ignore().add(content) };
}

/**
 * Is `relPath` ignored by the stack of `.gitignore` rules from the root down to its directory?
 * As in git, a deeper file's rules take precedence over a shallower one's: the deepest file
 * with a verdict (ignore or `!` re-include) decides.
 */
export function isGitignored(stack: readonly GitignoreRules[], relPath: string, isDirectory: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const { base, matcher } = stack[i]!;
    if (base !== '' && !relPath.startsWith(base + '/')) continue;
    const sub = base === '' ? relPath : relPath.slice(base.length + 1);
    const verdict = matcher.test(isDirectory ? sub + '/' : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** Root-relative directories whose `.gitignore` can affect `relPath`: '', 'a', 'a/b' for 'a/b/c.py'. */
export function ancestorDirs(relPath: string): string[] {
  const parts = relPath.split('/').slice(0, -1);
  const dirs = [''];
  for (let i = 1; i <= parts.length; i++) dirs.push(parts.slice(0, i).join('/'));
  return dirs;
}

/** Why a single path is excluded by path rules alone, or undefined when it may be indexed. */
export type PathRuleVerdict =
  | { reason: 'vendored-or-generated-directory'; detail: string }
  | { reason: 'ignored-by-gitignore'; detail: string };

/**
 * Judge one file path against the vendored list and every `.gitignore` on its way from the root,
 * including the rule that a file under an ignored directory is ignored.
 * `gitignores` maps each root-relative directory of {@link ancestorDirs} to the content of its
 * `.gitignore` (absent or undefined when it has none).
 */
export function judgePath(
  relPath: string,
  gitignores: ReadonlyMap<string, string | undefined>,
): PathRuleVerdict | undefined {
  const vendored = vendoredComponent(relPath);
  if (vendored) return { reason: 'vendored-or-generated-directory', detail: `inside ${vendored}/` };
  const stack: GitignoreRules[] = [];
  for (const dir of ancestorDirs(relPath)) {
    if (dir !== '' && isGitignored(stack, dir, true)) {
      return { reason: 'ignored-by-gitignore', detail: `directory ${dir}/ is ignored` };
    }
    const content = gitignores.get(dir);
    if (content !== undefined) stack.push(parseGitignore(dir, content));
  }
  return isGitignored(stack, relPath, false) ? { reason: 'ignored-by-gitignore', detail: 'matched a .gitignore rule' } : undefined;
}

/** Absolute path of the `.gitignore` of a root-relative directory. */
export function gitignorePath(rootPath: string, dir: string): string {
  return path.join(rootPath, ...dir.split('/').filter(Boolean), '.gitignore');
}
