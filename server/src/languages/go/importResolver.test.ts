import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ImportRecord, WorkspaceFiles } from '../language.js';
import go from './go.js';
import { resolveGoImport } from './importResolver.js';

/** WorkspaceFiles over a list of relPaths and the project files' texts by relPath. */
function fakeWorkspace(relPaths: string[], projectFiles: Record<string, string> = {}): WorkspaceFiles {
  const all = new Set(relPaths);
  return {
    has: (relPath) => all.has(relPath),
    inDirectory: (dir) => relPaths.filter((p) => path.posix.dirname(p) === (dir === '' ? '.' : dir)).sort(),
    projectFile: (_from, relPath) => projectFiles[relPath],
  };
}

const record = (module: string): ImportRecord => ({ module, names: [], line: 0 });
const from = (relPath: string) => ({ relPath, absPath: `/ws/${relPath}` });

const SHOP = fakeWorkspace([
  'main.go', 'doc_test.go', 'cmd/shop/main.go',
  'store/store.go', 'store/memory.go', 'store/store_test.go', 'store/README.md', 'store/testdata/x.json',
  'internal/db/db.go', 'third_party/fork/fork.go',
  'tools/main.go', 'tools/gen/gen.go',
  'plugins/main.go', 'plugins/auth/auth.go',
], {
  'go.mod': [
    'module example.com/shop // the shop',
    '',
    'go 1.22',
    '',
    'require (',
    '\texample.com/fork v1.2.0',
    '\tgithub.com/google/uuid v1.6.0 // indirect',
    ')',
    '',
    'replace example.com/fork v1.2.0 => ./third_party/fork',
    'replace (',
    '\texample.com/outside => ../outside',
    '\tgithub.com/google/uuid => github.com/acme/uuid v1.6.1',
    ')',
  ].join('\n'),
  'tools/go.mod': 'module example.com/shop/tools\n\ngo 1.22\n',
  'plugins/go.mod': 'module "example.com/plugins"\n',
});

describe('resolveGoImport in a module', () => {
  test.each([
    { name: 'a package of the module', file: 'cmd/shop/main.go', imp: 'example.com/shop/store', files: ['store/memory.go', 'store/store.go'] },
    { name: 'the module root package', file: 'cmd/shop/main.go', imp: 'example.com/shop', files: ['main.go'] },
    { name: 'an internal package', file: 'store/store.go', imp: 'example.com/shop/internal/db', files: ['internal/db/db.go'] },
    { name: 'the standard library', file: 'main.go', imp: 'net/http', files: [] },
    { name: 'a missing package of the module', file: 'main.go', imp: 'example.com/shop/missing', files: [] },
    { name: 'a directory without Go files', file: 'main.go', imp: 'example.com/shop/store/testdata', files: [] },
    { name: 'another module: no suffix guessing once there is a go.mod', file: 'main.go', imp: 'github.com/acme/store', files: [] },
    { name: 'a local replace', file: 'main.go', imp: 'example.com/fork', files: ['third_party/fork/fork.go'] },
    { name: 'a replace leaving the root', file: 'main.go', imp: 'example.com/outside', files: [] },
    { name: 'a replace by another module', file: 'main.go', imp: 'github.com/google/uuid', files: [] },
    { name: 'a nested module: its own packages', file: 'tools/main.go', imp: 'example.com/shop/tools/gen', files: ['tools/gen/gen.go'] },
    { name: 'a nested module: the enclosing module', file: 'tools/gen/gen.go', imp: 'example.com/shop/store', files: ['store/memory.go', 'store/store.go'] },
    { name: 'replacements are the nearest go.mod\'s only', file: 'tools/main.go', imp: 'example.com/fork', files: [] },
    { name: 'a nested module named otherwise', file: 'plugins/main.go', imp: 'example.com/plugins/auth', files: ['plugins/auth/auth.go'] },
    { name: 'a nested module is not seen from outside it', file: 'cmd/shop/main.go', imp: 'example.com/plugins/auth', files: [] },
  ])('$name', ({ file, imp, files }) => {
    const resolution = resolveGoImport(record(imp), from(file), SHOP);
    expect(resolution.packageFiles ?? []).toEqual(files);
    expect(resolution.resolvedPath).toBe(files[0]);
    expect(resolution.nameTargets).toEqual([]);
  });
});

describe('resolveGoImport in a go.work workspace', () => {
  const workspace = fakeWorkspace(['api/api.go', 'api/types/types.go', 'web/server.go', 'web/handlers/h.go', 'scratch/main.go'], {
    'go.work': 'go 1.22\n\nuse (\n\t./api\n\t./web // the site\n\t./missing\n)\n',
    'api/go.mod': 'module example.com/api\n',
    'web/go.mod': 'module example.com/web\n\nrequire example.com/api v0.0.0\n',
  });
  test.each([
    { name: 'a package of a used module', file: 'web/server.go', imp: 'example.com/api/types', files: ['api/types/types.go'] },
    { name: 'a used module\'s root', file: 'web/handlers/h.go', imp: 'example.com/api', files: ['api/api.go'] },
    { name: 'the own module', file: 'web/server.go', imp: 'example.com/web/handlers', files: ['web/handlers/h.go'] },
    { name: 'a file outside any module still sees the work modules', file: 'scratch/main.go', imp: 'example.com/web', files: ['web/server.go'] },
    { name: 'nothing else', file: 'web/server.go', imp: 'example.com/missing/x', files: [] },
  ])('$name', ({ file, imp, files }) => {
    expect(resolveGoImport(record(imp), from(file), workspace).packageFiles ?? []).toEqual(files);
  });
});

describe('resolveGoImport without go.mod (GOPATH-era trees)', () => {
  const workspace = fakeWorkspace(['main.go', 'pkg/util/strings.go', 'util/other.go', 'lib/lib.go', 'lib/lib_test.go', 'strings/mine.go']);
  test.each([
    { name: 'the longest suffix that is a package wins', imp: 'github.com/acme/proj/pkg/util', files: ['pkg/util/strings.go'] },
    { name: 'a one-element suffix', imp: 'github.com/acme/util', files: ['util/other.go'] },
    { name: 'test files are not the package', imp: 'github.com/acme/lib', files: ['lib/lib.go'] },
    { name: 'the standard library never resolves, even to a same-named directory', imp: 'strings', files: [] },
    { name: 'no such directory', imp: 'github.com/acme/none', files: [] },
  ])('$name', ({ imp, files }) => {
    expect(resolveGoImport(record(imp), from('main.go'), workspace).packageFiles ?? []).toEqual(files);
  });
});

describe('module paths without a dot', () => {
  const workspace = fakeWorkspace(['main.go', 'internal/db/db.go', 'http/mine.go'], { 'go.mod': 'module myapp\n' });
  test.each([
    { imp: 'myapp/internal/db', files: ['internal/db/db.go'] },
    { imp: 'net/http', files: [] },
  ])('$imp', ({ imp, files }) => {
    expect(resolveGoImport(record(imp), from('main.go'), workspace).packageFiles ?? []).toEqual(files);
  });
});

describe('dependency keys cover every file an import resolves to', () => {
  test.each([
    ['cmd/shop/main.go', 'example.com/shop/store'],
    ['cmd/shop/main.go', 'example.com/shop'],
    ['main.go', 'example.com/fork'],
    ['plugins/main.go', 'example.com/plugins/auth'],
  ])('%s imports %s', (file, imp) => {
    const resolution = resolveGoImport(record(imp), from(file), SHOP);
    const keys = go.imports.dependencyKeys(record(imp));
    expect(resolution.packageFiles!.length).toBeGreaterThan(0);
    for (const packageFile of resolution.packageFiles!) expect(keys).toContain(go.imports.keyOfFile(packageFile));
  });

  test('a module root named otherwise is covered once resolved', () => {
    const workspace = fakeWorkspace(['services/api-server/api.go', 'web/main.go'], {
      'go.work': 'use ./services/api-server\nuse ./web\n',
      'services/api-server/go.mod': 'module example.com/api\n',
      'web/go.mod': 'module example.com/web\n',
    });
    const resolution = resolveGoImport(record('example.com/api'), from('web/main.go'), workspace);
    expect(resolution.resolvedPath).toBe('services/api-server/api.go');
    expect(go.imports.dependencyKeys(record('example.com/api'))).not.toContain('api-server');
    expect(go.imports.dependencyKeys({ ...record('example.com/api'), resolvedPath: resolution.resolvedPath! })).toContain('api-server');
  });
});
