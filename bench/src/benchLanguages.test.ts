import { describe, expect, test } from 'vitest';
import { BENCH_LANGUAGES, expandPackageNames, whyNoPackages, type BenchLanguageId } from './benchLanguages.js';

describe('expandPackageNames', () => {
  const LISTS: Record<BenchLanguageId, string[]> = {
    python: ['python3-requests', 'python3-attr'],
    go: ['golang-github-spf13-cobra-dev', 'golang-github-spf13-viper-dev', 'golang-github-pelletier-go-toml.v2-dev'],
    rust: ['librust-futures-util-dev', 'librust-serde-dev'],
    javascript: ['node-js-yaml', 'node-ws'],
  };

  test.each([
    ['python', 'requests', 'python3-requests'],
    ['python', 'python3-attr', 'python3-attr'],
    ['python', 'numpy', 'numpy'], // not listed: taken as written
    ['go', 'cobra', 'golang-github-spf13-cobra-dev'],
    ['go', 'go-toml.v2', 'golang-github-pelletier-go-toml.v2-dev'],
    ['go', 'spf13', 'spf13'], // two listed names have it: ambiguous, taken as written
    ['rust', 'futures-util', 'librust-futures-util-dev'],
    ['rust', 'serde', 'librust-serde-dev'],
    ['javascript', 'js-yaml', 'node-js-yaml'],
    ['javascript', 'yaml', 'node-js-yaml'],
  ] as const)('%s: %s -> %s', (language, name, expected) => {
    expect(expandPackageNames([name], LISTS[language], BENCH_LANGUAGES[language])).toEqual([expected]);
  });
});

describe('whyNoPackages', () => {
  test('TypeScript is refused: it is tested with fixtures', () => {
    expect(whyNoPackages('typescript')).toMatch(/TypeScript has no Debian package list.*fixture/);
  });

  test.each(['python', 'go', 'rust', 'javascript'] as const)('%s has a package list', (language) => {
    expect(whyNoPackages(language)).toBeUndefined();
    expect(BENCH_LANGUAGES[language].packageList).toBe(language === 'python' ? 'packages.txt' : `packages-${language}.txt`);
  });
});
