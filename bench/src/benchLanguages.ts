/**
 * The languages the benchmark has Debian package lists for, and how each finds its repository
 * in an unpacked package: Python's dist-packages tree, Go's import path under gocode/src, Rust's
 * crate in the cargo registry, JavaScript's module under usr/share/nodejs. TypeScript has no
 * list: Debian ships compiled JavaScript, so TypeScript is tested with fixture workspaces.
 */
import path from 'node:path';
import type { CodeLanguage, LanguageId } from '../../server/src/languages/language.js';
import { languageById } from '../../server/src/languages/registry.js';
import { DIST_PACKAGES, fetchCodePackage, fetchDebianPackage, type DebianPackage, type FetchOptions } from './debianPackages.js';
import { countSourceFiles, goRepositoryRoot, nodeRepositoryRoot, rustRepositoryRoot, type RepositoryRoot } from './packageRoots.js';

/** Languages with a package list. */
export type BenchLanguageId = Exclude<LanguageId, 'typescript'>;

/** One language's packages and where their sources are. */
export interface BenchLanguage {
  id: BenchLanguageId;
  /** The package list's file name in ../shared/bench/. */
  packageList: string;
  /** Prefix of the list's package names, for short names on the command line (`requests`). */
  packagePrefix: string;
  /** Download and unpack a package (Python's may be a dependency package: fetchCodePackage). */
  fetch(name: string, options: FetchOptions): Promise<DebianPackage>;
  /** The repository root inside the unpacked package, or why there is none. */
  repositoryRoot(pkg: DebianPackage): Promise<RepositoryRoot>;
}

/** Python: the package's dist-packages tree, as the bench has always used it. */
const python: BenchLanguage = {
  id: 'python', packageList: 'packages.txt', packagePrefix: 'python3-', fetch: fetchCodePackage,
  repositoryRoot: async (pkg) => (pkg.moduleRoots.length > 0
    ? { kind: 'ok', root: path.join(pkg.rootDir, DIST_PACKAGES) }
    : { kind: 'skip', reason: `no Python modules in ${DIST_PACKAGES}` }),
};

/** A language whose root is found by `find` and must hold hand-written sources of the language. */
function sourceLanguage(
  id: Exclude<BenchLanguageId, 'python'>, packagePrefix: string, find: (rootDir: string, name: string) => Promise<RepositoryRoot>,
): BenchLanguage {
  return {
    id, packageList: `packages-${id}.txt`, packagePrefix, fetch: fetchDebianPackage,
    async repositoryRoot(pkg) {
      const found = await find(pkg.rootDir, pkg.name);
      if (found.kind !== 'ok') return found;
      const language = languageById(id)!;
      return (await countSourceFiles(found.root, language)) > 0 ? found : { kind: 'skip', reason: noSourcesReason(language, found.root, pkg) };
    },
  };
}

function noSourcesReason(language: CodeLanguage, root: string, pkg: DebianPackage): string {
  return `no ${language.name} sources (${language.extensions.join(' ')}) in ${path.relative(pkg.rootDir, root)} outside ` +
    'dist/, build/, node_modules/ and minified bundles: it ships compiled output only';
}

/** Every language with a package list. */
export const BENCH_LANGUAGES: Readonly<Record<BenchLanguageId, BenchLanguage>> = {
  python,
  go: sourceLanguage('go', 'golang-', goRepositoryRoot),
  rust: sourceLanguage('rust', 'librust-', rustRepositoryRoot),
  javascript: sourceLanguage('javascript', 'node-', nodeRepositoryRoot),
};

/** Why a language cannot be benchmarked from Debian packages, if it cannot. */
export function whyNoPackages(id: LanguageId): string | undefined {
  if (id in BENCH_LANGUAGES) return undefined;
  return `${languageById(id)?.name ?? id} has no Debian package list (Debian ships compiled JavaScript, not TypeScript ` +
    'sources): it is tested with fixture workspaces (test/fixtures/), not by the bench. Use --language python, go, rust or javascript.';
}

/**
 * Package names from the command line: a listed name stays, a short one (`requests`, `cobra`,
 * `serde`) is the one listed name that has it as a dash-separated part after the language's
 * prefix; anything else is taken as written.
 */
export function expandPackageNames(requested: readonly string[], listed: readonly string[], language: BenchLanguage): string[] {
  return requested.map((name) => {
    if (listed.includes(name)) return name;
    const matches = listed.filter((full) => `-${full.slice(language.packagePrefix.length)}-`.includes(`-${name}-`) && full.startsWith(language.packagePrefix));
    return matches.length === 1 ? matches[0]! : name;
  });
}
