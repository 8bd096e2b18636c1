import { describe, expect, test } from 'vitest';
import type { ImportRecord } from '../language.js';
import go from './go.js';

const record = (module: string, resolvedPath?: string): ImportRecord => ({ module, names: [], line: 0, ...(resolvedPath ? { resolvedPath } : {}) });

describe('import keys', () => {
  test.each([
    ['store/store.go', 'store'],
    ['internal/db/db_test.go', 'db'],
    ['main.go', '/'],
    ['services/api-server/api.go', 'api-server'],
  ])('keyOfFile(%s) = %s', (relPath, key) => {
    expect(go.imports.keyOfFile(relPath)).toBe(key);
  });

  test.each([
    [record('fmt'), ['fmt', '/']],
    [record('example.com/shop/store'), ['store', '/']],
    [record('example.com/m/v2'), ['v2', '/']],
    [record('example.com/api', 'services/api-server/api.go'), ['api', '/', 'api-server']],
    [record('example.com/shop/store', 'store/store.go'), ['store', '/']],
  ])('dependencyKeys(%o)', (imp, keys) => {
    expect(go.imports.dependencyKeys(imp)).toEqual(keys);
  });
});

describe('editing rules', () => {
  test.each([
    ['func (s *Store) Get(key string) (int, error) {', true],
    ['\tif err != nil {', true],
    ['\tpoints := []Point{', true],
    ['type Config struct {', true],
    ['\treturn x', false],
  ])('opensBlock(%j) = %s', (line, opens) => {
    expect(go.editing.opensBlock(line)).toBe(opens);
  });

  test('backtick strings span lines and ignore backslashes; rune literals are quoted', () => {
    const { lexical } = go.editing;
    expect(lexical.lineComments).toEqual(['//']);
    expect(lexical.blockComment).toEqual({ open: '/*', close: '*/' });
    expect(lexical.multiLineQuotes).toEqual(['`']);
    expect(lexical.rawQuotes).toEqual(['`']);
    expect([...lexical.quotes].sort()).toEqual(['"', "'", '`']);
  });
});

describe('the language entry', () => {
  test('owns .go files through tree-sitter-go', () => {
    expect(go.id).toBe('go');
    expect(go.extensions).toEqual(['.go']);
    expect(go.grammarOf('a/b.go')).toEqual({ package: 'tree-sitter-go', wasm: 'tree-sitter-go.wasm' });
    expect(go.project.projectFiles).toEqual(['go.mod', 'go.work']);
  });
});
