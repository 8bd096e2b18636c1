import { describe, expect, test } from 'vitest';
import rust from './rust.js';

describe('editing rules', () => {
  test.each([
    { line: 'impl<T> From<T> for Wrapper<T> {', opens: true },
    { line: '    match value {  ', opens: true },
    { line: 'let x = vec![1, 2];', opens: false },
    { line: 'fn f() -> u8 { 0 }', opens: false },
  ])('opensBlock($line) is $opens', ({ line, opens }) => {
    expect(rust.editing.opensBlock(line)).toBe(opens);
  });

  test('lifetimes are no quotes; strings may span lines', () => {
    expect(rust.editing.lexical.quotes).toEqual(['"']);
    expect(rust.editing.lexical.multiLineQuotes).toEqual(['"']);
    expect(rust.editing.lexical.blockComment).toEqual({ open: '/*', close: '*/' });
    expect(rust.editing.topLevelStarts).toContain('impl');
  });

  test('project rules', () => {
    expect(rust.project).toEqual({ rootMarkers: ['Cargo.toml'], skipDirectories: ['target'], projectFiles: ['Cargo.toml'] });
    expect(rust.extensions).toEqual(['.rs']);
  });
});
