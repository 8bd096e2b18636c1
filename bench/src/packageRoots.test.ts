import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { languageById } from '../../server/src/languages/registry.js';
import {
  CARGO_REGISTRY, GOCODE_SRC, countSourceFiles, goRepositoryRoot, nodeRepositoryRoot, rustRepositoryRoot, type RepositoryRoot,
} from './packageRoots.js';

let dir: string;
let count = 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'reposhapley-roots-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** An unpacked package holding `files` (relative paths; content irrelevant); `links` are symlinks to directories. */
async function unpacked(files: readonly string[], links: Record<string, string> = {}): Promise<string> {
  const root = path.join(dir, `pkg${count++}`);
  for (const file of files) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), '');
  }
  for (const [link, target] of Object.entries(links)) {
    await mkdir(path.dirname(path.join(root, link)), { recursive: true });
    await symlink(path.join(root, target), path.join(root, link));
  }
  return root;
}

/** The root relative to the package, or the skip reason. */
function shown(root: string, found: RepositoryRoot): string {
  return found.kind === 'ok' ? path.relative(root, found.root) : `skip: ${found.reason}`;
}

const GO = GOCODE_SRC;

describe('goRepositoryRoot', () => {
  test.each([
    ['the single-child chain down to the .go files', 'golang-github-spf13-cobra-dev',
      [`${GO}/github.com/spf13/cobra/command.go`, `${GO}/github.com/spf13/cobra/doc/man.go`], {}, `${GO}/github.com/spf13/cobra`],
    ['a major version directory named like the package (.v2)', 'golang-github-pelletier-go-toml.v2-dev',
      [`${GO}/github.com/pelletier/go-toml/v2/go.mod`, `${GO}/github.com/pelletier/go-toml/v2/unstable/ast.go`], {}, `${GO}/github.com/pelletier/go-toml/v2`],
    // As Debian's logrus ships it: a real Sirupsen/ directory holding a symlink.
    ['an old spelling kept as symlinks is no second import path', 'golang-github-sirupsen-logrus-dev',
      [`${GO}/github.com/sirupsen/logrus/logger.go`], { [`${GO}/github.com/Sirupsen/logrus`]: `${GO}/github.com/sirupsen/logrus` },
      `${GO}/github.com/sirupsen/logrus`],
    ['several import paths: the one named after the package', 'golang-github-a-b-dev',
      [`${GO}/github.com/a/b/b.go`, `${GO}/github.com/c/d/d.go`, `${GO}/golang.org/x/e/e.go`], {}, `${GO}/github.com/a/b`],
    ['a module root holding only subpackages', 'golang-github-a-kit-dev',
      [`${GO}/github.com/a/kit/log/log.go`, `${GO}/github.com/a/kit/auth/auth.go`], {}, `${GO}/github.com/a/kit`],
    ['several import paths, none named after the package', 'golang-github-z-dev',
      [`${GO}/github.com/a/b/b.go`, `${GO}/github.com/c/d/d.go`], {}, `skip: no import path named after golang-github-z-dev in ${GO}/github.com (a, c)`],
    ['no gocode tree', 'golang-github-a-b-dev', ['usr/share/doc/x/copyright'], {}, `skip: no Go sources in ${GO}`],
  ])('%s', async (_, name, files, links, expected) => {
    const root = await unpacked(files, links);
    expect(shown(root, await goRepositoryRoot(root, name))).toBe(expected);
  });
});

describe('rustRepositoryRoot', () => {
  test.each([
    ['the one crate', 'librust-serde-dev', [`${CARGO_REGISTRY}/serde-1.0.152/src/lib.rs`], `${CARGO_REGISTRY}/serde-1.0.152`],
    ['the crate named after the package among several', 'librust-futures-util-dev',
      [`${CARGO_REGISTRY}/futures-core-0.3.21/src/lib.rs`, `${CARGO_REGISTRY}/futures-util-0.3.21/src/lib.rs`], `${CARGO_REGISTRY}/futures-util-0.3.21`],
    ['a digit after a dash is part of the name', 'librust-sha-1-dev',
      [`${CARGO_REGISTRY}/sha-1-0.10.0/src/lib.rs`, `${CARGO_REGISTRY}/sha2-0.10.6/src/lib.rs`], `${CARGO_REGISTRY}/sha-1-0.10.0`],
    ['none named after the package', 'librust-x-dev', [`${CARGO_REGISTRY}/a-1.0.0/src/lib.rs`, `${CARGO_REGISTRY}/b-1.0.0/src/lib.rs`],
      `skip: no single crate named x in ${CARGO_REGISTRY} (a-1.0.0, b-1.0.0)`],
    ['no registry', 'librust-x-dev', ['usr/share/doc/x/copyright'], `skip: no crate in ${CARGO_REGISTRY}`],
  ])('%s', async (_, name, files, expected) => {
    const root = await unpacked(files);
    expect(shown(root, await rustRepositoryRoot(root, name))).toBe(expected);
  });
});

describe('nodeRepositoryRoot', () => {
  test.each([
    ['usr/share/nodejs/<name>', 'node-semver', ['usr/share/nodejs/semver/index.js', 'usr/share/nodejs/@types/semver/index.d.ts'], 'usr/share/nodejs/semver'],
    ['usr/lib/nodejs/<name> of older packages', 'node-old', ['usr/lib/nodejs/old/index.js'], 'usr/lib/nodejs/old'],
    ['bundled modules beside it but not its own', 'node-postcss', ['usr/share/nodejs/nanoid/index.js'],
      'skip: no postcss/ in usr/share/nodejs or usr/lib/nodejs (usr/share/nodejs/nanoid)'],
  ])('%s', async (_, name, files, expected) => {
    const root = await unpacked(files);
    expect(shown(root, await nodeRepositoryRoot(root, name))).toBe(expected);
  });
});

describe('countSourceFiles', () => {
  test.each([
    ['hand-written files count', ['index.js', 'lib/a.mjs', 'lib/b.cjs'], 3],
    ['build output, dependencies and minified bundles do not', ['dist/a.js', 'build/b.js', 'node_modules/c/index.js', 'd.min.js'], 0],
    ['nor other languages', ['index.d.ts', 'src/a.ts', 'README.md'], 0],
  ])('%s', async (_, files, expected) => {
    const root = await unpacked(files);
    expect(await countSourceFiles(root, languageById('javascript')!)).toBe(expected);
  });
});
