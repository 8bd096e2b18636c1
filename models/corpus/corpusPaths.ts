/**
 * Which .py paths of a source tree enter the corpus at all, before any content check.
 * Vendored copies are excluded by path component: pip and setuptools carry copies of benchmark
 * packages (requests, rich, ...) under `_vendor/`. The server's list (workspace/pathRules.ts)
 * already covers A.2's vendor/, third_party/, site-packages/, dist/, build/, .venv/, migrations/.
 */
import { vendoredComponent } from '../../server/src/workspace/pathRules.js';

/** Issue 4's vendored components beyond the server's list. */
export const CORPUS_VENDORED_DIR_NAMES: ReadonlySet<string> = new Set([
  'vendor', '_vendor', 'vendored', '_vendored', 'extern', '_extern', 'third_party', 'thirdparty', '_thirdparty',
]);

/**
 * Parts of CPython's standard library that are not library code worth learning from, relative
 * to /usr/lib/python3.11: the test suites (huge, repetitive, and partly deliberately broken
 * syntax), IDLE and turtledemo (applications), lib2to3's fixtures, the frozen hello packages, the generated sysconfig data
 * and build configuration.
 */
export const STDLIB_EXCLUDED_PREFIXES: readonly string[] = [
  'test/', 'idlelib/', 'turtledemo/', 'lib2to3/tests/', 'tkinter/test/', 'unittest/test/', 'ctypes/test/',
  'distutils/tests/', 'sqlite3/test/', '__phello__/', 'ensurepip/', '_sysconfigdata_',
  'site-packages/', 'dist-packages/', 'config-3.11-x86_64-linux-gnu/',
];

/** Why a path is excluded by path alone. */
export type PathSkipReason = 'vendored' | 'excluded-directory' | 'stdlib-excluded';

/** Judge a tree-relative .py path ("django/utils/text.py"); undefined when it may enter the corpus. */
export function judgeCorpusPath(relPath: string, options: { stdlib?: boolean } = {}): { reason: PathSkipReason; detail: string } | undefined {
  const dirs = relPath.split('/').slice(0, -1);
  const vendored = dirs.find((d) => CORPUS_VENDORED_DIR_NAMES.has(d));
  if (vendored) return { reason: 'vendored', detail: `inside ${vendored}/` };
  const generated = vendoredComponent(relPath);
  if (generated) return { reason: 'excluded-directory', detail: `inside ${generated}/` };
  if (options.stdlib) {
    const prefix = STDLIB_EXCLUDED_PREFIXES.find((p) => relPath.startsWith(p));
    if (prefix) return { reason: 'stdlib-excluded', detail: `under ${prefix}` };
  }
  return undefined;
}

/** Test code by path convention (tests/, test_*.py, *_test.py, conftest.py). */
export function isTestPath(relPath: string): boolean {
  const parts = relPath.split('/');
  const file = parts[parts.length - 1]!;
  return parts.slice(0, -1).some((d) => d === 'tests' || d === 'test' || d === 'testing')
    || file.startsWith('test_') || file.endsWith('_test.py') || file === 'conftest.py';
}
