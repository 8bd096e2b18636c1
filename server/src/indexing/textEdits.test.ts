import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createParserForPath } from '../languages/registry.js';
import type { SyntaxParser } from '../languages/syntaxTree.js';
import { applyDocumentEdit, clampedOffset, pointAt, spliceLines, splitLines, type DocumentEdit } from './textEdits.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParserForPath('module.py');
});
afterAll(() => parser.dispose());

const at = (line: number, character: number) => ({ line, character });
const range = (sl: number, sc: number, el: number, ec: number) => ({ start: at(sl, sc), end: at(el, ec) });

describe('positions are clamped, never thrown', () => {
  const text = 'ab\r\ncdé\nxyz';
  test.each([
    { position: at(0, 0), offset: 0 },
    { position: at(0, 2), offset: 2 },
    { position: at(0, 3), offset: 2 }, // Between \r and \n is not a position: end of line.
    { position: at(0, 99), offset: 2 },
    { position: at(1, 3), offset: 7 },
    { position: at(2, 3), offset: 11 },
    { position: at(7, 0), offset: 11 }, // Past the last line: end of document.
    { position: at(-1, -5), offset: 0 },
    { position: at(Number.NaN, 1), offset: 1 },
  ])('$position.line:$position.character -> $offset', ({ position, offset }) => {
    expect(clampedOffset(text, position)).toBe(offset);
  });

  test('pointAt counts rows by \\n and columns in UTF-16 units', () => {
    expect(pointAt(text, 7)).toEqual({ row: 1, column: 3 });
    expect(pointAt(text, 0)).toEqual({ row: 0, column: 0 });
    expect(pointAt('😀x\ny', 2)).toEqual({ row: 0, column: 2 });
  });
});

describe('applying edits', () => {
  const base = 'def f(a):\n    return a\n\nx = f(1)\n';
  test.each<{ name: string; edit: DocumentEdit; expected: string }>([
    { name: 'insert', edit: { range: range(3, 0, 3, 0), text: 'y = 2\n' }, expected: 'def f(a):\n    return a\n\ny = 2\nx = f(1)\n' },
    { name: 'delete a line', edit: { range: range(2, 0, 3, 0), text: '' }, expected: 'def f(a):\n    return a\nx = f(1)\n' },
    { name: 'replace across lines', edit: { range: range(0, 6, 1, 12), text: 'b):\n    return b' }, expected: 'def f(b):\n    return b\n\nx = f(1)\n' },
    { name: 'reversed range is swapped', edit: { range: range(0, 7, 0, 6), text: 'z' }, expected: 'def f(z):\n    return a\n\nx = f(1)\n' },
    { name: 'range past the end appends', edit: { range: range(40, 0, 50, 3), text: '# end\n' }, expected: `${base}# end\n` },
    { name: 'full replacement', edit: { text: 'pass\n' }, expected: 'pass\n' },
  ])('$name', ({ edit, expected }) => {
    expect(applyDocumentEdit(base, edit).text).toBe(expected);
  });

  test('the tree edit makes an incremental reparse equal to a fresh parse', () => {
    const edits: DocumentEdit[] = [
      { range: range(1, 11, 1, 12), text: 'a + 1' },
      { range: range(3, 0, 3, 0), text: 'class K:\n    """Doc."""\n    def m(self):\n        return "é😀"\n' },
      { range: range(0, 4, 0, 5), text: 'größe' },
      { range: range(9, 0, 9, 8), text: '' },
    ];
    let text = base;
    let tree = parser.parse(text);
    for (const edit of edits) {
      const applied = applyDocumentEdit(text, edit);
      text = applied.text;
      tree.edit(applied.treeEdit!);
      const next = parser.parse(text, tree);
      tree.delete();
      tree = next;
    }
    const fresh = parser.parse(text);
    expect(tree.rootNode.toString()).toBe(fresh.rootNode.toString());
    expect(tree.rootNode.endIndex).toBe(text.length);
    tree.delete();
    fresh.delete();
  });
});

describe('lines kept up to date edit by edit', () => {
  test('spliceLines equals splitting the new text, over 2,000 random edits', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ['', 'x', 'def f():\n', '\n', '\r\n', 'é😀', '    return 1\r\n', 'a\nb\nc', '\n\n'];
    let text = 'import os\r\n\ndef g():\n    pass\n';
    let lines = splitLines(text);
    for (let i = 0; i < 2000; i++) {
      const line = random(lines.length + 2);
      const edit: DocumentEdit = {
        range: range(line, random(12), line + random(3), random(12)),
        text: pieces[random(pieces.length)]!,
      };
      const applied = applyDocumentEdit(text, edit);
      lines = spliceLines(lines, applied.text, applied.treeEdit!);
      text = applied.text;
      expect(lines).toEqual(splitLines(text));
    }
  });
});
