import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import type { ImportRecord } from '../language.js';
import { resolveImport } from './importResolver.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/index-pkg');

/** The fixture's .py files by relPath (it has no ignore rules or links to judge). */
function pythonFilesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((relPath) => relPath.endsWith('.py'))
    .map((relPath) => relPath.split(path.sep).join('/'));
}

let files: Set<string>;
beforeAll(() => {
  files = new Set(pythonFilesUnder(FIXTURE));
});

const record = (module: string, ...names: string[]): ImportRecord => ({ module, names: names.map((name) => ({ name })), line: 0 });
const from = (relPath: string, root = FIXTURE) => ({ relPath, absPath: path.join(root, relPath) });

describe('resolveImport on the fixture workspace', () => {
  test.each([
    { name: 'absolute module under src/ (package top)', file: 'src/pkg/sub/deep.py', imp: record('pkg.util'), resolved: 'src/pkg/util.py' },
    { name: 'absolute package -> __init__.py', file: 'src/pkg/util.py', imp: record('pkg.sub'), resolved: 'src/pkg/sub/__init__.py' },
    { name: 'absolute from outside the package, via src/', file: 'app.py', imp: record('pkg.util'), resolved: 'src/pkg/util.py' },
    { name: 'absolute from the root', file: 'app.py', imp: record('requests.api'), resolved: 'requests/api.py' },
    { name: 'script directory is on the path', file: 'tools/run.py', imp: record('helpers'), resolved: 'tools/helpers.py' },
    { name: 'relative sibling module', file: 'src/pkg/__init__.py', imp: record('.util', 'helper'), resolved: 'src/pkg/util.py' },
    { name: 'relative parent module', file: 'src/pkg/sub/deep.py', imp: record('..util', 'helper'), resolved: 'src/pkg/util.py' },
    { name: 'relative package itself', file: 'src/pkg/sub/deep.py', imp: record('..', 'util'), resolved: 'src/pkg/__init__.py', names: ['src/pkg/util.py'] },
    { name: 'from package import submodule', file: 'app.py', imp: record('pkg', 'sub'), resolved: 'src/pkg/__init__.py', names: ['src/pkg/sub/__init__.py'] },
    { name: 'name that is not a submodule', file: 'src/pkg/__init__.py', imp: record('.', 'sub', 'not_a_module'), resolved: 'src/pkg/__init__.py', names: ['src/pkg/sub/__init__.py', undefined] },
    { name: 'namespace package (no __init__.py)', file: 'tests/test_util.py', imp: record('nspkg', 'inner'), resolved: undefined, names: [undefined] },
    { name: 'namespace submodule', file: 'app.py', imp: record('nspkg.inner.mod'), resolved: 'nspkg/inner/mod.py' },
    { name: 'beyond the top of the workspace', file: 'src/pkg/sub/deep.py', imp: record('....', 'beyond'), resolved: undefined, names: [undefined] },
    { name: 'missing module', file: 'app.py', imp: record('missing.module'), resolved: undefined },
    { name: 'star import keeps the star unresolved', file: 'requests/api.py', imp: record('.utils', '*'), resolved: 'requests/utils.py', names: [undefined] },
  ])('$name', ({ file, imp, resolved, names }) => {
    const resolution = resolveImport(imp, from(file), (relPath) => files.has(relPath));
    expect(resolution.resolvedPath).toBe(resolved);
    if (names) expect(resolution.nameTargets).toEqual(names);
  });

  test('a root that is itself the package: its own name stands for it', () => {
    const root = path.join(FIXTURE, 'requests');
    const inRoot = new Set(['__init__.py', 'api.py', 'utils.py']);
    const has = (relPath: string) => inRoot.has(relPath);
    expect(resolveImport(record('requests.utils'), from('api.py', root), has).resolvedPath).toBe('utils.py');
    expect(resolveImport(record('requests'), from('api.py', root), has).resolvedPath).toBe('__init__.py');
    expect(resolveImport(record('requests', 'utils'), from('api.py', root), has).nameTargets).toEqual(['utils.py']);
    expect(resolveImport(record('.utils', 'quote'), from('api.py', root), has).resolvedPath).toBe('utils.py');
    expect(resolveImport(record('other.utils'), from('api.py', root), has).resolvedPath).toBeUndefined();
  });
});
