import { expect, test } from 'vitest';
import { CACHE_PREFIX_CHARS, DocumentMirror } from './documents.js';

const uri = 'file:///w/a.py';

function mirror(text: string): DocumentMirror {
  const documents = new DocumentMirror();
  documents.open(uri, 'python', 1, text);
  return documents;
}

test.each<[string, string, number, number, boolean]>([
  ['start', 'ab\ncd', 0, 0, true],
  ['end of a line', 'ab\ncd', 0, 2, true],
  ['end of the file', 'ab\ncd', 1, 2, true],
  ['past the end of a line', 'ab\ncd', 0, 3, false],
  ['a line past the end', 'ab\ncd', 2, 0, false],
  ['past a CRLF line end', 'ab\r\ncd', 0, 3, false],
  ['empty last line', 'ab\n', 1, 0, true],
])('cursorContext at the %s', (_name, text, line, character, inside) => {
  expect(mirror(text).cursorContext(uri, { line, character }) !== undefined).toBe(inside);
});

test('cursorContext bounds the prefix and follows incremental edits', () => {
  const documents = mirror(`${'x'.repeat(CACHE_PREFIX_CHARS + 10)}\nabc`);
  documents.change(uri, [{ range: { start: { line: 1, character: 1 }, end: { line: 1, character: 2 } }, text: 'ZZ' }], 2);
  const context = documents.cursorContext(uri, { line: 1, character: 3 });
  expect(context?.prefix.length).toBe(CACHE_PREFIX_CHARS);
  expect(context?.prefix.endsWith('\naZZ')).toBe(true);
  expect(context?.suffix).toBe('c');
  expect(context?.version).toBe(2);
});

test('unopened documents have no context and ignore changes', () => {
  const documents = new DocumentMirror();
  expect(documents.cursorContext(uri, { line: 0, character: 0 })).toBeUndefined();
  expect(documents.change(uri, [{ text: 'x' }], 2)).toBe(false);
});
