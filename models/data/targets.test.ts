import { describe, expect, test } from 'vitest';
import type { Definition, FileIndex, IndexView } from '../../server/src/indexing/types.js';
import { seededRandom, sample } from './random.js';
import { blockBodyEnd, findTargets, MAX_BLOCK_LINES, linesInTripleQuotedStrings } from './targets.js';

const SOURCE = [
  'from shop.cart import Cart',        // 0
  '',                                  // 1
  'def checkout(items):',              // 2
  '    cart = Cart(len(items))',       // 3
  '    for item in items:',            // 4
  '        cart.add(item)',            // 5
  '',                                  // 6
  '        # done',                    // 7
  '    return cart',                   // 8
  '',                                  // 9
  'x = 1  # ok',                       // 10
].join('\n');

function fileIndex(text: string, references: Record<string, number[]>): FileIndex {
  return {
    relPath: 'app/checkout.py', absPath: '/w/app/checkout.py', text, lines: text.split('\n'), version: 1, fromBuffer: false,
    windows: [], structural: [], definitions: [], imports: [], references: new Map(Object.entries(references)), hasSyntaxErrors: false,
  };
}

function view(definitions: Partial<Definition>[]): IndexView {
  return {
    version: 1, files: () => [], file: () => undefined, referencesTo: () => [], chunkText: () => '',
    definitionsNamed: (name) => definitions.filter((d) => d.name === name) as Definition[],
  };
}

describe('findTargets', () => {
  const found = findTargets(
    fileIndex(SOURCE, { Cart: [0, 3], len: [3], checkout: [] }),
    view([{ name: 'Cart', relPath: 'shop/cart.py', kind: 'class' }, { name: 'len', relPath: 'app/checkout.py', kind: 'function' }]),
  );

  test('line targets: the rest of each code line after its indentation, never comments', () => {
    const cartLine = found.line.find((t) => t.line === 3)!;
    expect(cartLine).toMatchObject({ character: 4, text: 'cart = Cart(len(items))' });
    expect(SOURCE.slice(cartLine.start, cartLine.end)).toBe(cartLine.text);
    expect(found.line.map((t) => t.line)).toEqual([0, 2, 3, 4, 5, 8, 10]);
  });

  test('api targets: calls of names defined in another file, from the name on; imports are not calls', () => {
    expect(found.api.map((t) => [t.line, t.character, t.text])).toEqual([[3, 11, 'Cart(len(items))']]);
  });

  test('block targets: whole bodies after a colon, cursor after the first body line\'s indentation', () => {
    expect(found.block.map((t) => [t.line, t.character, t.text])).toEqual([
      [3, 4, SOURCE.split('\n').slice(3, 9).join('\n').slice(4)],
      [5, 8, 'cart.add(item)\n\n        # done'],
    ]);
  });

  test('CRLF files give no targets', () => {
    const crlf = findTargets(fileIndex(SOURCE.replace(/\n/g, '\r\n'), {}), view([]));
    expect(crlf).toEqual({ line: [], api: [], block: [] });
  });
});

test('blockBodyEnd ignores bodies longer than MAX_BLOCK_LINES', () => {
  const lines = ['def f():', ...Array.from({ length: MAX_BLOCK_LINES + 1 }, (_, i) => `    x${i} = ${i}`)];
  expect(blockBodyEnd(lines, 0)).toBeUndefined();
  expect(blockBodyEnd(lines.slice(0, MAX_BLOCK_LINES + 1), 0)).toBe(MAX_BLOCK_LINES);
});

test('seededRandom is reproducible and sample draws distinct items', () => {
  const a = sample([1, 2, 3, 4, 5, 6], 4, seededRandom('x'));
  expect(sample([1, 2, 3, 4, 5, 6], 4, seededRandom('x'))).toEqual(a);
  expect(new Set(a).size).toBe(4);
  expect(sample([1, 2], 5, seededRandom('y')).sort()).toEqual([1, 2]);
});

test('lines of docstrings and other triple-quoted strings are found, comments and one-line quotes are not confused', () => {
  const lines = [
    'def f(x):',
    '    """Summary line.',
    '',
    '    More text with a \'quote\', then the end."""',
    '    y = "not a \'\'\' start"  # """ in a comment',
    "    s = '''one-liner'''",
    '    return x',
    'DOC = r"""',
    'raw \\""" still inside',
    '"""',
    'z = 1',
  ];
  expect(linesInTripleQuotedStrings(lines)).toEqual([false, true, true, true, false, true, false, true, true, true, false]);
});
