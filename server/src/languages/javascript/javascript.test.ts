import { describe, expect, test } from 'vitest';
import javascript from './javascript.js';
import typescript from './typescript.js';

describe('editing and project rules', () => {
  test('blocks open with a brace; template literals span lines', () => {
    expect(typescript.editing.opensBlock('export function f(a: number) {')).toBe(true);
    expect(typescript.editing.opensBlock('const x = f(')).toBe(false);
    expect(javascript.editing.lexical.multiLineQuotes).toEqual(['`']);
    expect(javascript.editing.lexical.blockComment).toEqual({ open: '/*', close: '*/' });
  });

  test('grammars and registry entries', () => {
    expect(javascript.grammarOf('a/b.mjs')).toEqual({ package: 'tree-sitter-javascript', wasm: 'tree-sitter-javascript.wasm' });
    expect(typescript.grammarOf('a/b.d.ts').wasm).toBe('tree-sitter-typescript.wasm');
    expect(typescript.grammarOf('a/b.cts').wasm).toBe('tree-sitter-typescript.wasm');
    expect(javascript.extensions).toContain('.jsx');
    expect(typescript.project.projectFiles).toEqual(expect.arrayContaining(['package.json', 'tsconfig.json']));
    expect(typescript.project.skipDirectories).toContain('node_modules');
  });
});
