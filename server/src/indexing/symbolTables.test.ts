import { describe, expect, test } from 'vitest';
import { SymbolTables } from './symbolTables.js';
import type { Definition, FileIndex } from './types.js';

function file(relPath: string, defs: [string, number][], refs: string[]): FileIndex {
  const definitions: Definition[] = defs.map(([name, startLine]) => ({
    name, qualifiedName: name, kind: 'function', relPath, startLine, endLine: startLine + 1, signature: `def ${name}():`,
  }));
  return {
    relPath, absPath: `/w/${relPath}`, text: '', lines: [], version: 1, fromBuffer: false, windows: [], structural: [],
    definitions, imports: [], references: new Map(refs.map((r) => [r, [0]])), hasSyntaxErrors: false,
  };
}

describe('SymbolTables', () => {
  test('definitions stay ordered by (relPath, startLine) as files come and go', () => {
    const tables = new SymbolTables();
    tables.replace(undefined, file('b.py', [['run', 5], ['run', 1]], ['x']));
    tables.replace(undefined, file('a.py', [['run', 9]], ['x', 'y']));
    expect(tables.definitionsNamed('run').map((d) => `${d.relPath}:${d.startLine}`)).toEqual(['a.py:9', 'b.py:1', 'b.py:5']);
    expect(tables.filesReferencing('x')).toEqual(['a.py', 'b.py']);
    const snapshot = tables.definitionsNamed('run');
    tables.replace(file('b.py', [['run', 5], ['run', 1]], ['x']), file('b.py', [['walk', 2]], ['y']));
    expect(snapshot).toHaveLength(3); // Earlier results are snapshots, not live views.
    expect(tables.definitionsNamed('run').map((d) => d.relPath)).toEqual(['a.py']);
    expect(tables.filesReferencing('x')).toEqual(['a.py']);
    expect(tables.filesReferencing('y')).toEqual(['a.py', 'b.py']);
    expect(tables.counts()).toEqual({ definitions: 2, definedNames: 2, referencedNames: 2 });
    tables.replace(file('a.py', [['run', 9]], ['x', 'y']), undefined);
    expect(tables.definitionsNamed('run')).toEqual([]);
    expect(tables.filesReferencing('x')).toEqual([]);
    expect(tables.counts()).toEqual({ definitions: 1, definedNames: 1, referencedNames: 1 });
  });
});
