import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_CHUNK_OPTIONS, slidingWindows, validateChunkOptions, type ChunkOptions } from './chunker.js';
import { buildFileIndex, splitLines } from './fileIndexer.js';
import { createParserForPath } from '../languages/registry.js';
import type { SyntaxParser } from '../languages/syntaxTree.js';
import type { Chunk, FileIndex } from './types.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParserForPath('module.py');
});
afterAll(() => parser.dispose());

function indexText(text: string, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): FileIndex {
  const tree = parser.parse(text);
  try {
    return buildFileIndex({ relPath: 'm.py', absPath: '/w/m.py', text, version: 1, fromBuffer: false }, tree, options);
  } finally {
    tree.delete();
  }
}

/** `kind symbol start-end [part/of]`, compact enough to read a table of expectations. */
function describeChunk(chunk: Chunk): string {
  const part = chunk.part ? ` ${chunk.part.index}/${chunk.part.of}` : '';
  return `${chunk.kind}${chunk.symbol ? ` ${chunk.symbol}` : ''} ${chunk.startLine}-${chunk.endLine}${part}`;
}

const ranges = (chunks: Chunk[]) => chunks.map((c) => [c.startLine, c.endLine]);
const lines = (n: number, prefix = 'x') => Array.from({ length: n }, (_, i) => `${prefix}${i} = ${i}`);

describe('sliding windows', () => {
  test.each([
    { name: 'empty file', lines: [''], w: 20, s: 10, expected: [] },
    { name: 'blank lines only', lines: ['', '   ', '\t', ''], w: 20, s: 10, expected: [] },
    { name: 'shorter than w', lines: lines(5), w: 20, s: 10, expected: [[0, 5]] },
    { name: 'exactly w', lines: lines(20), w: 20, s: 10, expected: [[0, 20]] },
    { name: 'one more than w', lines: lines(21), w: 20, s: 10, expected: [[0, 20], [1, 21]] },
    { name: 'last window aligned to the end', lines: lines(35), w: 20, s: 10, expected: [[0, 20], [10, 30], [15, 35]] },
    { name: 'stride divides evenly', lines: lines(40), w: 20, s: 10, expected: [[0, 20], [10, 30], [20, 40]] },
    { name: 'final newline is not a line', lines: [...lines(21), ''], w: 20, s: 10, expected: [[0, 20], [1, 21]] },
    { name: 'custom w=4 s=2', lines: lines(9), w: 4, s: 2, expected: [[0, 4], [2, 6], [4, 8], [5, 9]] },
    { name: 'all-blank windows dropped', lines: [...Array<string>(10).fill(''), ...lines(10)], w: 5, s: 5, expected: [[10, 15], [15, 20]] },
  ])('$name', ({ lines: fileLines, w, s, expected }) => {
    const windows = slidingWindows('m.py', fileLines, { windowLines: w, windowStride: s, maxChunkLines: 60 });
    expect(ranges(windows)).toEqual(expected);
    for (const window of windows) expect(window.id).toBe(`m.py:window:${window.startLine}-${window.endLine}`);
  });

  test.each([
    { w: 0, s: 1 }, { w: 10, s: 0 }, { w: 10, s: 11 }, { w: 2.5, s: 1 },
  ])('rejects w=$w s=$s', ({ w, s }) => {
    expect(() => validateChunkOptions({ windowLines: w, windowStride: s, maxChunkLines: 60 })).toThrow(RangeError);
  });
});

const LONG_BODY = ['def long():', ...Array.from({ length: 130 }, (_, i) => `    v${i} = ${i}`)].join('\n');

describe('structural chunks over awkward Python', () => {
  test.each([
    { name: 'empty file', source: '', expected: [] },
    {
      name: 'stacked decorators and the import block',
      source: 'import os\nfrom a import (b,\n    c)\n\n@first\n@second.attr(1)\ndef f(x):\n    return x\n',
      expected: ['imports 0-3', 'function f 4-8'],
    },
    {
      name: 'class stops before its first method; async and nested defs',
      source: [
        'class A(Base):', '    """Doc."""', '    x = 1', '', '    @property', '    def p(self):', '        return 1', '',
        '    async def q(self):', '        def inner():', '            pass', '        return inner',
      ].join('\n'),
      expected: ['class A 0-3', 'method A.p 4-7', 'method A.q 8-12', 'function A.q.<locals>.inner 9-11'],
    },
    {
      name: 'class without methods is whole',
      source: 'class Point:\n    x: int\n    y: int\n',
      expected: ['class Point 0-3'],
    },
    {
      name: 'nested class and async top-level function',
      source: 'class Outer:\n    class Meta:\n        db = 1\n    def run(self):\n        pass\nasync def main():\n    await x()\n',
      expected: ['class Outer 0-3', 'class Outer.Meta 1-3', 'method Outer.run 3-5', 'function main 5-7'],
    },
    { name: 'unicode identifiers', source: 'def größe():\n    return 1\n\nclass Ünïcode:\n    pass\n', expected: ['function größe 0-2', 'class Ünïcode 3-5'] },
    { name: 'CRLF line endings', source: 'import os\r\n\r\n@dec\r\ndef f():\r\n    return 1\r\n', expected: ['imports 0-1', 'function f 2-5'] },
    { name: 'tab indentation', source: 'class T:\n\tdef m(self):\n\t\treturn 1\n', expected: ['class T 0-1', 'method T.m 1-3'] },
    {
      name: 'syntax errors are recovered around',
      source: 'def ok():\n    return 1\n\ndef broken(:\n    pass\n\ndef after():\n    return 2\n',
      expected: ['function ok 0-2', 'function broken 3-5', 'function after 6-8'],
    },
    {
      name: 'imports in top-level try/except widen the block',
      source: 'import os\ntry:\n    import json\nexcept ImportError:\n    json = None\n\nx = 1\n',
      expected: ['imports 0-5'],
    },
    { name: 'long body split into parts', source: LONG_BODY, expected: ['function long 0-44 1/3', 'function long 44-88 2/3', 'function long 88-131 3/3'] },
  ])('$name', ({ source, expected }) => {
    const index = indexText(source);
    expect(index.structural.map(describeChunk)).toEqual(expected);
    expect(new Set(index.structural.map((c) => c.id)).size).toBe(index.structural.length);
  });

  test('syntax errors are flagged but the file is indexed', () => {
    const index = indexText('def broken(:\n    pass\n');
    expect(index.hasSyntaxErrors).toBe(true);
    expect(index.windows).toHaveLength(1);
  });

  test('CRLF: lines and chunk text carry no carriage returns, line numbers match LF', () => {
    const crlf = indexText('a = 1\r\nb = 2\r\n');
    expect(crlf.lines).toEqual(['a = 1', 'b = 2', '']);
    expect(crlf.text).toBe('a = 1\r\nb = 2\r\n');
    expect(splitLines('x\r\ny')).toEqual(['x', 'y']);
  });

  test('a 10,000-line generated file', () => {
    const functions = 500;
    const source = Array.from({ length: functions }, (_, f) =>
      [`def f${f}(a, b):`, `    """Function ${f}."""`, ...Array.from({ length: 17 }, (_, i) => `    a = a + ${i}`), '    return a'].join('\n'),
    ).join('\n');
    const index = indexText(source);
    const n = functions * 20;
    expect(index.lines).toHaveLength(n);
    // Windows at 0, 10, ..., 9970 end before n; then the window aligned to the end.
    expect(index.windows).toHaveLength(Math.ceil((n - 20) / 10) + 1);
    expect(index.windows.at(-1)).toMatchObject({ startLine: n - 20, endLine: n });
    expect(index.windows.every((w) => w.endLine - w.startLine === 20)).toBe(true);
    expect(index.structural).toHaveLength(functions);
    expect(index.structural[123]).toMatchObject({ kind: 'function', symbol: 'f123', startLine: 2460, endLine: 2480 });
    expect(index.definitions[499]).toMatchObject({ name: 'f499', signature: 'def f499(a, b):', docstring: 'Function 499.' });
    // `a` is on every line of a function but its docstring: def (parameter), 17 assignments, return.
    expect(index.references.get('a')).toHaveLength(functions * 19);
  });
});
