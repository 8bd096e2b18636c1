import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createParserForPath } from '../../server/src/languages/registry.js';
import type { SyntaxParser } from '../../server/src/languages/syntaxTree.js';
import type { Definition, FileIndex, ImportRecord, IndexView } from '../../server/src/indexing/types.js';
import { seededRandom, sample } from './random.js';
import { blockBodyEnd, drawTargets, findTargets, MAX_BLOCK_LINES, type Target, type TargetKind } from './targets.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParserForPath('module.py');
});
afterAll(() => parser.dispose());

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

function fileIndex(text: string, references: Record<string, number[]>, imports: ImportRecord[] = []): FileIndex {
  return {
    relPath: 'app/checkout.py', absPath: '/w/app/checkout.py', text, lines: text.split('\n'), version: 1, fromBuffer: false,
    windows: [], structural: [], definitions: [], imports, references: new Map(Object.entries(references)), hasSyntaxErrors: false,
  };
}

function view(definitions: Partial<Definition>[]): IndexView {
  return {
    version: 1, files: () => [], file: () => undefined, referencesTo: () => [], chunkText: () => '',
    definitionsNamed: (name) => definitions.filter((d) => d.name === name) as Definition[],
  };
}

describe('findTargets', () => {
  let found: Record<TargetKind, Target[]>;
  beforeAll(() => {
    // `len` is also defined in another file, but nothing here imports it: a builtin call, not API.
    found = findTargets(
      fileIndex(SOURCE, { Cart: [0, 3], len: [3], checkout: [] }, [
        { module: 'shop.cart', names: [{ name: 'Cart' }], line: 0, resolvedPath: 'shop/cart.py' },
      ]),
      view([
        { name: 'Cart', qualifiedName: 'Cart', relPath: 'shop/cart.py', kind: 'class' },
        { name: 'len', qualifiedName: 'len', relPath: 'shop/util.py', kind: 'function' },
      ]),
      parser,
    );
  });

  test('line targets: the rest of each code line after its indentation, never comments', () => {
    const cartLine = found.line.find((t) => t.line === 3)!;
    expect(cartLine).toMatchObject({ character: 4, text: 'cart = Cart(len(items))' });
    expect(SOURCE.slice(cartLine.start, cartLine.end)).toBe(cartLine.text);
    expect(found.line.map((t) => t.line)).toEqual([0, 2, 3, 4, 5, 8, 10]);
  });

  test('api targets: calls that resolve through an import to another file, from the call on (the bench\'s rule)', () => {
    expect(found.api.map((t) => [t.line, t.character, t.text])).toEqual([[3, 11, 'Cart(len(items))']]);
  });

  test('api targets: a module\'s function called through the module starts at the module\'s name', () => {
    const source = 'import shop.cart as c\n\nbox = c.Cart(1)\nn = len(box)\n';
    const api = findTargets(
      fileIndex(source, { c: [2], len: [3] }, [{ module: 'shop.cart', alias: 'c', names: [], line: 0, resolvedPath: 'shop/cart.py' }]),
      view([
        { name: 'Cart', qualifiedName: 'Cart', relPath: 'shop/cart.py', kind: 'class' },
        { name: 'len', qualifiedName: 'len', relPath: 'shop/util.py', kind: 'function' },
      ]),
      parser,
    ).api;
    expect(api.map((t) => [t.line, t.character, t.text])).toEqual([[2, 6, 'c.Cart(1)']]);
  });

  test('block targets: whole bodies after a colon, cursor after the first body line\'s indentation', () => {
    expect(found.block.map((t) => [t.line, t.character, t.text, t.body])).toEqual([
      [3, 4, SOURCE.split('\n').slice(3, 9).join('\n').slice(4), 'function'],
      [5, 8, 'cart.add(item)\n\n        # done', 'statement'],
    ]);
  });

  test('CRLF files give no targets', () => {
    const crlf = findTargets(fileIndex(SOURCE.replace(/\n/g, '\r\n'), {}), view([]), parser);
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

test('line targets leave out docstrings and lines inside multi-line strings (the bench\'s rule)', () => {
  const source = [
    'def f(x):',                                  // 0
    '    """Summary line.',                       // 1
    '',                                           // 2
    '    More text, then the end."""',            // 3
    '    y = "not a docstring"  # """ comment',   // 4
    "    'a one-line string statement'",          // 5
    '    return x',                               // 6
    'DOC = """',                                  // 7
    'still inside',                               // 8
    '"""',                                        // 9
    'z = 1',                                      // 10
  ].join('\n');
  const lines = findTargets(fileIndex(source, {}), view([]), parser).line.map((t) => t.line);
  expect(lines).toEqual([0, 4, 6, 10]);
});

describe('function-body block targets (the bench\'s RepoEval rule)', () => {
  const source = [
    'def load(path):',                     // 0
    '    """Read a config file.',          // 1
    '',                                    // 2
    '    Returns a dict."""',              // 3
    '    with open(path) as f:',           // 4
    '        text = f.read()',             // 5
    '    return parse(text)',              // 6
    '',                                    // 7
    'def short():',                        // 8
    '    """Too short for the rule."""',   // 9
    '    return 1',                        // 10
  ].join('\n');
  const blocks = () => findTargets(fileIndex(source, {}), view([]), parser).block;

  test('start at the first statement after the docstring and run to the body\'s end', () => {
    const fn = blocks().find((t) => t.body === 'function')!;
    expect([fn.line, fn.character]).toEqual([4, 4]);
    expect(fn.text).toBe(source.split('\n').slice(4, 7).join('\n').slice(4));
  });

  test('bodies under 3 lines are no function targets; a docstring-first body stays a statement target', () => {
    expect(blocks().filter((t) => t.body === 'function')).toHaveLength(1);
    expect(blocks().filter((t) => t.body === 'statement').map((t) => t.line)).toEqual([1, 5, 9]);
  });
});

test('drawTargets takes block targets half from function bodies, alternating', () => {
  const functions = Array.from({ length: 6 }, (_, i) => [
    `def f${i}(x):`, '    y = x + 1', '    z = y * 2', '    return z', '',
  ]).flat();
  const statements = Array.from({ length: 10 }, (_, i) => [`if c${i}:`, `    v = ${i}`, '']).flat();
  const text = [...functions, ...statements].join('\n');
  const file = fileIndex(text, {});
  const repoView: IndexView = { ...view([]), files: () => [file] };
  const drawn = drawTargets(repoView, 'repo', 2, { line: 0, api: 0, block: 1 }, parser).block;
  expect(drawn).toHaveLength(6);
  expect(drawn.map((t) => t.body)).toEqual(['function', 'statement', 'function', 'statement', 'function', 'statement']);
  const fewFunctions = drawTargets(repoView, 'repo', 6, { line: 0, api: 0, block: 1 }, parser).block;
  expect(fewFunctions.filter((t) => t.body === 'function')).toHaveLength(6);
  expect(fewFunctions).toHaveLength(16);
});
