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

describe('functions called on their type', () => {
  test.each([
    ['pub fn new(name: impl Into<Str>) -> Self', true],
    ['pub(crate) fn with_capacity<T: Fn(u8) -> u8>(n: usize) -> Vec<T>', true],
    ['fn default() -> Self', true],
    ['pub fn describe(&self) -> String', false],
    ["pub fn parts<'a>(&'a mut self) -> Parts<'a>", false],
    ['fn into_inner(self) -> T', false],
    ['fn boxed(mut self: Box<Self>) -> u8', false],
    ['fn call(self: Pin<&mut Self>)', false],
  ])('%s: %s', (signature, onType) => {
    expect(rust.symbols.calledOnType!({ signature })).toBe(onType);
  });
});
