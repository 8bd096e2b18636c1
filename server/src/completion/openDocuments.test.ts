import { expect, test } from 'vitest';
import { splitLines } from '../indexing/textEdits.js';
import { OpenDocuments } from './openDocuments.js';

const uri = 'file:///w/a.py';

function store(text: string): OpenDocuments {
  const documents = new OpenDocuments();
  documents.open(uri, text, 1);
  return documents;
}

test.each<[string, string, number, number, boolean]>([
  ['start', 'ab\ncd', 0, 0, true],
  ['end of a line', 'ab\ncd', 0, 2, true],
  ['end of the file', 'ab\ncd', 1, 2, true],
  ['past the end of a line', 'ab\ncd', 0, 3, false],
  ['a line past the end', 'ab\ncd', 2, 0, false],
  ['past a CRLF line end', 'ab\r\ncd', 0, 3, false],
  ['line after a CRLF', 'ab\r\ncd', 1, 1, true],
  ['empty last line', 'ab\n', 1, 0, true],
  ['negative character', 'ab\n', 0, -1, false],
])('textAround at the %s', (_name, text, line, character, inside) => {
  expect(store(text).textAround(uri, { line, character }, 10, 10) !== undefined).toBe(inside);
});

test('textAround bounds both sides and follows incremental edits', () => {
  const documents = store(`${'x'.repeat(30)}\nabc\r\ndef`);
  documents.change(uri, [{ range: { start: { line: 1, character: 1 }, end: { line: 1, character: 2 } }, text: 'ZZ' }], 2);
  const context = documents.textAround(uri, { line: 1, character: 3 }, 20, 4);
  expect(context).toEqual({ prefix: `${'x'.repeat(16)}\naZZ`, suffix: 'c\r\nd', version: 2 });
});

test('an edit is applied once: text, lines and version move together, with the tree edit of each edit', () => {
  const documents = store('def f():\n    return 1\n');
  const changed = documents.change(uri, [
    { range: { start: { line: 1, character: 11 }, end: { line: 1, character: 12 } }, text: '2' },
    { text: 'x = 1\r\ny = 2\n' },
    { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: 'z = 3\n' },
  ], 7)!;
  expect(changed.document.text).toBe('x = 1\r\nz = 3\ny = 2\n');
  expect(changed.document.lines).toEqual(splitLines(changed.document.text));
  expect(changed.change.treeEdits.map((edit) => edit === undefined)).toEqual([false, true, false]);
  expect(documents.version(uri)).toBe(7);
  expect(documents.get(uri)).toBe(changed.document);
});

test('unopened documents have no text around and ignore changes; close forgets', () => {
  const documents = new OpenDocuments();
  expect(documents.textAround(uri, { line: 0, character: 0 }, 1, 1)).toBeUndefined();
  expect(documents.change(uri, [{ text: 'x' }], 2)).toBeUndefined();
  documents.open(uri, 'a', 1);
  expect(documents.close(uri)?.text).toBe('a');
  expect(documents.has(uri)).toBe(false);
  expect(documents.version(uri)).toBeUndefined();
});
