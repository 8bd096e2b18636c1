import { describe, expect, test } from 'vitest';
import type { ImportRecord, WorkspaceFiles } from '../language.js';
import { resolveImport } from './importResolver.js';
import { dependencyKeys, keyOfFile } from './moduleFiles.js';
import typescript from './typescript.js';

/** A workspace of source files (relPaths) and project files (relPath -> text), as the index shows it. */
function workspace(sources: readonly string[], projectFiles: Record<string, string> = {}): WorkspaceFiles & { reads: string[] } {
  const files = new Set(sources);
  const reads: string[] = [];
  return {
    reads,
    has: (relPath) => files.has(relPath),
    inDirectory: (dir) => sources.filter((file) => file.slice(0, Math.max(0, file.lastIndexOf('/'))) === dir).sort(),
    projectFile: (_from, relPath) => {
      reads.push(relPath);
      return projectFiles[relPath];
    },
  };
}

const SOURCES = [
  'index.ts',
  'src/app.ts', 'src/util.ts', 'src/types.d.ts', 'src/legacy.js', 'src/widget.tsx', 'src/esm.mts',
  'src/store/index.ts', 'src/store/items.ts', 'src/components/Button.jsx', 'src/components/index.js',
  'src/lib/math.ts', 'scripts/build.mjs', 'scripts/config.cjs',
  'packages/core/src/index.ts', 'packages/core/src/format.ts', 'packages/ui/lib/main.js', 'packages/ui/lib/theme.js',
  'packages/cli/src/run.ts', 'lib/input.js', 'lib/input.d.ts', 'lib/parser.js',
];

const PROJECT_FILES: Record<string, string> = {
  'tsconfig.json': `{
    // Shared options.
    "extends": "./tsconfig.base.json",
    "compilerOptions": {
      "strict": true, /* more below */
      "paths": {
        "@/*": ["./src/*"],
        "@lib/*": ["./src/lib/*", "./vendor/*"],
        "@store": ["src/store/index.ts"],
        "*": ["./nowhere/*"],
      },
    },
  }`,
  'tsconfig.base.json': `{ "compilerOptions": { "baseUrl": "." } }`,
  'packages/core/package.json': `{ "name": "@acme/core", "main": "dist/index.js", "exports": { ".": { "types": "./dist/index.d.ts", "import": "./dist/index.mjs" }, "./format": "./dist/format.js" } }`,
  'packages/ui/package.json': `{ "name": "ui", "main": "lib/main.js" }`,
  'packages/cli/package.json': `{ "name": "not-cli", "main": "src/run.ts" }`,
  'packages/cli/tsconfig.json': `{ "compilerOptions": { } }`,
};

const record = (module: string, ...names: string[]): ImportRecord => ({ module, names: names.map((name) => ({ name })), line: 0 });

describe('resolveImport', () => {
  const files = workspace(SOURCES, PROJECT_FILES);
  test.each([
    { name: 'sibling without extension', from: 'src/app.ts', module: './util', resolved: 'src/util.ts' },
    { name: 'TypeScript ESM: .js names the .ts source', from: 'src/app.ts', module: './util.js', resolved: 'src/util.ts' },
    { name: 'a .js file as written', from: 'src/app.ts', module: './legacy.js', resolved: 'src/legacy.js' },
    { name: 'declaration file', from: 'src/app.ts', module: './types', resolved: 'src/types.d.ts' },
    { name: '.tsx by extension search', from: 'src/app.ts', module: './widget', resolved: 'src/widget.tsx' },
    { name: '.mjs names the .mts source', from: 'src/app.ts', module: './esm.mjs', resolved: 'src/esm.mts' },
    { name: 'directory index', from: 'src/app.ts', module: './store', resolved: 'src/store/index.ts' },
    { name: 'explicit index', from: 'src/store/items.ts', module: './index.js', resolved: 'src/store/index.ts' },
    { name: 'parent directory', from: 'src/store/items.ts', module: '../util', resolved: 'src/util.ts' },
    { name: '`.` is the directory index', from: 'src/store/items.ts', module: '.', resolved: 'src/store/index.ts' },
    { name: '`..` at the root index', from: 'src/app.ts', module: '..', resolved: 'index.ts' },
    { name: 'trailing slash is a directory', from: 'src/app.ts', module: './components/', resolved: 'src/components/index.js' },
    { name: 'JSX component', from: 'src/components/index.js', module: './Button', resolved: 'src/components/Button.jsx' },
    { name: 'CommonJS from .mjs', from: 'scripts/build.mjs', module: './config.cjs', resolved: 'scripts/config.cjs' },
    { name: 'JavaScript loads the .js beside a .d.ts', from: 'lib/parser.js', module: './input', resolved: 'lib/input.js' },
    { name: 'TypeScript reads the .d.ts beside a .js', from: 'src/app.ts', module: '../lib/input', resolved: 'lib/input.d.ts' },
    { name: 'beyond the workspace', from: 'src/app.ts', module: '../../outside', resolved: undefined },
    { name: 'missing file', from: 'src/app.ts', module: './missing', resolved: undefined },
    { name: 'paths wildcard', from: 'src/app.ts', module: '@/store/items', resolved: 'src/store/items.ts' },
    { name: 'paths longest prefix wins', from: 'src/app.ts', module: '@lib/math', resolved: 'src/lib/math.ts' },
    { name: 'paths exact entry', from: 'src/app.ts', module: '@store', resolved: 'src/store/index.ts' },
    { name: 'baseUrl from the extended config', from: 'src/app.ts', module: 'src/util', resolved: 'src/util.ts' },
    { name: 'workspace package through exports conditions (dist -> src)', from: 'src/app.ts', module: '@acme/core', resolved: 'packages/core/src/index.ts' },
    { name: 'workspace package subpath export', from: 'src/app.ts', module: '@acme/core/format', resolved: 'packages/core/src/format.ts' },
    { name: 'workspace package main', from: 'src/app.ts', module: 'ui', resolved: 'packages/ui/lib/main.js' },
    { name: 'workspace package file subpath', from: 'src/app.ts', module: 'ui/lib/theme', resolved: 'packages/ui/lib/theme.js' },
    { name: 'package.json name must match', from: 'src/app.ts', module: 'cli', resolved: undefined },
    { name: 'npm dependency', from: 'src/app.ts', module: 'react', resolved: undefined },
    { name: 'node builtin', from: 'src/app.ts', module: 'node:fs', resolved: undefined },
    { name: 'nearest tsconfig governs: no paths in packages/cli', from: 'packages/cli/src/run.ts', module: '@/util', resolved: undefined },
  ])('$name', ({ from, module, resolved }) => {
    const resolution = resolveImport(record(module, 'a', 'b'), { relPath: from, absPath: `/ws/${from}` }, files);
    expect(resolution.resolvedPath).toBe(resolved);
    expect(resolution.nameTargets).toEqual([undefined, undefined]);
  });

  test('relative imports read no project files', () => {
    const quiet = workspace(SOURCES, PROJECT_FILES);
    resolveImport(record('./util'), { relPath: 'src/app.ts', absPath: '/ws/src/app.ts' }, quiet);
    expect(quiet.reads).toEqual([]);
  });

  test.each([
    { name: 'unparseable tsconfig', config: '{ "compilerOptions": { "paths": ', module: 'src/util', resolved: undefined },
    { name: 'tsconfig that is not an object', config: '[1, 2]', module: 'src/util', resolved: undefined },
    { name: 'comment markers inside strings are kept', config: '{ "compilerOptions": { "rootDir": "http://x/*", "paths": { "@app/*": ["src/*"] } } }', module: '@app/util', resolved: 'src/util.ts' },
    { name: 'extends cycle', config: '{ "extends": "./tsconfig.json", "compilerOptions": { "baseUrl": "." } }', module: 'src/util', resolved: 'src/util.ts' },
    { name: 'extends of a shared config in node_modules is skipped', config: '{ "extends": "@tsconfig/node20", "compilerOptions": { "baseUrl": "./src" } }', module: 'util', resolved: 'src/util.ts' },
    // jsonc-parser recurses per level; this depth overflowed the stack and failed the whole index pass.
    { name: 'nested 20,000 deep', config: `{ "compilerOptions": { "paths": ${'{ "a":'.repeat(20_000)} 1 ${'}'.repeat(20_000)} } }`, module: 'src/util', resolved: undefined },
  ])('bad or odd config: $name', ({ config, module, resolved }) => {
    const files2 = workspace(SOURCES, { 'tsconfig.json': config });
    expect(resolveImport(record(module), { relPath: 'src/app.ts', absPath: '/ws/src/app.ts' }, files2).resolvedPath).toBe(resolved);
  });

  test('a config is read once per lookup however often `extends` names it (itself, forty times)', () => {
    const config = JSON.stringify({ extends: Array(40).fill('./tsconfig.json'), compilerOptions: { baseUrl: '.' } });
    const files2 = workspace(SOURCES, { 'tsconfig.json': config });
    expect(resolveImport(record('src/util'), { relPath: 'src/app.ts', absPath: '/ws/src/app.ts' }, files2).resolvedPath).toBe('src/util.ts');
    expect(files2.reads.filter((read) => read === 'tsconfig.json')).toHaveLength(1);
  });

  test('paths of an extended config are relative to that config (no baseUrl)', () => {
    const monorepo = workspace([...SOURCES, 'packages/app/src/main.ts'], {
      'packages/app/tsconfig.json': '{ "extends": "../../tsconfig.base", "compilerOptions": { "outDir": "dist" } }',
      'tsconfig.base.json': '{ "compilerOptions": { "paths": { "@core/*": ["packages/core/src/*"] } } }',
    });
    const from = { relPath: 'packages/app/src/main.ts', absPath: '/ws/packages/app/src/main.ts' };
    expect(resolveImport(record('@core/format'), from, monorepo).resolvedPath).toBe('packages/core/src/format.ts');
    expect(monorepo.reads.slice(0, 4)).toEqual(['packages/app/src/tsconfig.json', 'packages/app/src/jsconfig.json', 'packages/app/tsconfig.json', 'tsconfig.base.json']);
  });

  test('jsconfig.json paths for JavaScript projects', () => {
    const files3 = workspace(SOURCES, { 'jsconfig.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "~/*": ["src/*"] } } }' });
    expect(resolveImport(record('~/components'), { relPath: 'scripts/build.mjs', absPath: '/ws/scripts/build.mjs' }, files3).resolvedPath).toBe('src/components/index.js');
  });
});

describe('monorepo packages and subpath imports', () => {
  const MONOREPO = [
    'apps/web/src/main.ts', 'apps/web/src/lib/format.ts', 'apps/web/src/config.ts', 'apps/web/src/config.node.ts',
    'libs/ui/src/index.ts', 'libs/ui/src/button.tsx', 'tools/cli/src/main.ts', 'services/api/index.js',
    'services/legacy/index.js', 'packages/old/index.ts', 'src/internal/log.ts', 'src/app.ts',
  ];
  const APP = {
    'apps/web/package.json': `{ "name": "@acme/web", "imports": {
      "#lib/*": "./src/lib/*.ts", "#lib/format": "./src/lib/format.ts",
      "#config": { "node": "./src/config.node.ts", "default": "./src/config.ts" },
      "#ui": "@acme/ui", "#outside": "../../src/app.ts" } }`,
    'libs/ui/package.json': '{ "name": "@acme/ui", "exports": { ".": "./dist/index.js", "./*": "./dist/*.js" } }',
    'tools/cli/package.json': '{ "name": "acme-cli", "main": "src/main.ts" }',
    'services/api/package.json': '{ "name": "api" }',
    'services/legacy/package.json': '{ "name": "legacy" }',
    'packages/old/package.json': '{ "name": "old" }',
    'package.json': '{ "name": "root", "private": true, "imports": { "#internal/*": "./src/internal/*.ts" } }',
  };
  const from = { relPath: 'apps/web/src/main.ts', absPath: '/ws/apps/web/src/main.ts' };
  const resolve = (files: WorkspaceFiles, module: string, importer = from) => resolveImport(record(module), importer, files).resolvedPath;

  test.each([
    { name: 'npm workspaces array', root: { workspaces: ['apps/*', 'libs/**', 'tools/cli'] } },
    { name: "Yarn's { packages } form", root: { workspaces: { packages: ['./apps/*', 'libs/*/', 'tools/cli'] } } },
  ])('$name: packages found where the root says, by name', ({ root }) => {
    const files = workspace(MONOREPO, { ...APP, 'package.json': JSON.stringify({ name: 'root', ...root }) });
    expect(resolve(files, '@acme/ui')).toBe('libs/ui/src/index.ts'); // exports into dist/ -> src/
    expect(resolve(files, '@acme/ui/button')).toBe('libs/ui/src/button.tsx');
    expect(resolve(files, 'acme-cli')).toBe('tools/cli/src/main.ts');
    expect(resolve(files, 'old')).toBeUndefined(); // packages/* is the default only when the root names nothing
    expect(resolve(files, '@other/ui')).toBeUndefined(); // libs/ui/package.json names @acme/ui
  });

  test('pnpm-workspace.yaml, negations left out; a broken one counts as absent', () => {
    const pnpm = workspace(MONOREPO, { ...APP, 'pnpm-workspace.yaml': "packages:\n  - 'services/*'\n  - '!services/legacy'\n  - libs/*\n" });
    expect(resolve(pnpm, 'api')).toBe('services/api/index.js');
    expect(resolve(pnpm, '@acme/ui')).toBe('libs/ui/src/index.ts');
    expect(resolve(pnpm, 'old')).toBeUndefined();
    const broken = workspace(MONOREPO, { ...APP, 'pnpm-workspace.yaml': 'packages: [services/*\n' });
    expect(resolve(broken, 'old')).toBe('packages/old/index.ts');
    expect(resolve(broken, 'api')).toBeUndefined();
  });

  test.each([
    { module: '#lib/format', resolved: 'apps/web/src/lib/format.ts', why: 'an exact key before the pattern' },
    { module: '#config', resolved: 'apps/web/src/config.node.ts', why: 'conditions in the order written' },
    { module: '#ui', resolved: 'libs/ui/src/index.ts', why: 'a target naming a workspace package' },
    { module: '#outside', resolved: undefined, why: 'a target leaving the package' },
    { module: '#missing', resolved: undefined, why: 'no such key' },
    { module: '#internal/log', resolved: undefined, why: "the root's imports are not the app package's" },
  ])('#imports of the nearest package.json: $module ($why)', ({ module, resolved }) => {
    const files = workspace(MONOREPO, { ...APP, 'package.json': '{ "workspaces": ["apps/*", "libs/*"], "imports": { "#internal/*": "./src/internal/*.ts" } }' });
    expect(resolve(files, module)).toBe(resolved);
  });

  test("a file of the root package reads the root's imports", () => {
    const files = workspace(MONOREPO, APP);
    expect(resolve(files, '#internal/log', { relPath: 'src/app.ts', absPath: '/ws/src/app.ts' })).toBe('src/internal/log.ts');
  });
});

describe('dependency keys', () => {
  test.each([
    { file: 'src/util.ts', key: 'util' },
    { file: 'src/types.d.ts', key: 'types' },
    { file: 'src/components/Button.jsx', key: 'Button' },
    { file: 'src/store/index.ts', key: 'store' },
    { file: 'index.ts', key: 'index' },
    { file: 'lib/x.test.ts', key: 'x.test' },
  ])('keyOfFile($file) = $key', ({ file, key }) => {
    expect(keyOfFile(file)).toBe(key);
  });

  test.each([
    { module: './util.js', keys: ['util'] },
    { module: '../store', keys: ['store'] },
    { module: './store/index', keys: ['index', 'store'] },
    { module: '.', keys: ['index'] },
    { module: '../', keys: ['index'] },
    { module: '@acme/core', keys: ['core'] },
    { module: 'react', keys: ['react'] },
    { module: '#config', keys: ['config'] },
    { module: '#lib/format', keys: ['format'] },
  ])('dependencyKeys($module) = $keys', ({ module, keys }) => {
    expect(dependencyKeys(record(module))).toEqual(keys);
  });

  test('every import resolved above lists the key of its file', () => {
    const files = workspace(SOURCES, PROJECT_FILES);
    const cases: [string, string][] = [
      ['src/app.ts', './store'], ['src/store/items.ts', './index.js'], ['src/store/items.ts', '.'], ['src/app.ts', '..'],
      ['src/app.ts', './util.js'], ['src/app.ts', '@/store/items'], ['src/app.ts', '@store'], ['src/app.ts', '@acme/core'], ['src/app.ts', 'ui'],
    ];
    for (const [from, module] of cases) {
      const imported = record(module);
      const resolvedPath = resolveImport(imported, { relPath: from, absPath: `/ws/${from}` }, files).resolvedPath;
      expect(resolvedPath).toBeDefined();
      imported.resolvedPath = resolvedPath!;
      expect(typescript.imports.dependencyKeys(imported)).toContain(typescript.imports.keyOfFile(resolvedPath!));
    }
  });
});
