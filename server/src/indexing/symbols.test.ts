import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { firstDocstringLine } from '../languages/python/definitionText.js';
import python from '../languages/python/python.js';
import { createParserForPath, languageOfPath } from '../languages/registry.js';
import type { SyntaxParser } from '../languages/syntaxTree.js';
import { createStatementCache, extractSymbols, ExtractionTimeout, type StatementCache, type SymbolExtraction } from './symbols.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParserForPath('module.py');
});
afterAll(() => parser.dispose());

function extract(source: string, cache?: StatementCache): SymbolExtraction {
  const tree = parser.parse(source);
  try {
    return extractSymbols(tree, source, 'pkg/m.py', python, cache);
  } finally {
    tree.delete();
  }
}

const definition = (source: string, index = 0) => extract(source).sites[index]!.definition;

describe('signatures', () => {
  test.each([
    { source: 'def f(a, b=1, *args, **kw) -> int:\n    pass', signature: 'def f(a, b=1, *args, **kw) -> int:' },
    { source: 'async def fetch(url: str):\n    pass', signature: 'async def fetch(url: str):' },
    { source: '@decorator\n@other(1)\ndef g(x):  # trailing comment\n    pass', signature: 'def g(x):' },
    {
      source: 'def h(\n    a,  # first\n    b: "x # not a comment",\n) -> None:\n    pass',
      signature: 'def h(a, b: "x # not a comment",) -> None:',
    },
    { source: 'def spaced(a,     b):\n    pass', signature: 'def spaced(a, b):' },
    { source: 'class K(Base, metaclass=Meta):\n    pass', signature: 'class K(Base, metaclass=Meta):' },
    { source: 'class Plain:\n    pass', signature: 'class Plain:' },
    { source: 'def lam(f=lambda x: x[1:2]):\n    pass', signature: 'def lam(f=lambda x: x[1:2]):' },
    { source: 'def größe(ä):\n    pass', signature: 'def größe(ä):' },
  ])('$signature', ({ source, signature }) => {
    expect(definition(source).signature).toBe(signature);
  });
});

describe('docstrings', () => {
  test.each([
    { name: 'triple-quoted, first line blank', source: 'def f():\n    """\n\n    Doc line.\n    More.\n    """', docstring: 'Doc line.' },
    { name: 'single-quoted', source: "def f():\n    'Short.'", docstring: 'Short.' },
    { name: 'raw string', source: 'def f():\n    r"""Raw \\d."""', docstring: 'Raw \\d.' },
    { name: 'comment before it', source: 'def f():\n    # note\n    """After comment."""', docstring: 'After comment.' },
    { name: 'class docstring', source: 'class C:\n    """Class doc."""\n    x = 1', docstring: 'Class doc.' },
    { name: 'implicitly concatenated', source: 'def f():\n    "First" "second"', docstring: 'First' },
    { name: 'not the first statement', source: 'def f():\n    x = 1\n    """Not a docstring."""', docstring: undefined },
    { name: 'f-strings are not docstrings', source: 'def f():\n    f"""{x}"""', docstring: undefined },
    { name: 'bytes are not docstrings', source: 'def f():\n    b"bytes"', docstring: undefined },
    { name: 'empty docstring', source: 'def f():\n    """   """', docstring: undefined },
  ])('$name', ({ source, docstring }) => {
    expect(definition(source).docstring).toBe(docstring);
  });

  test('firstDocstringLine strips quotes and prefixes', () => {
    expect(firstDocstringLine("u'''\n  Hello\n'''")).toBe('Hello');
    expect(firstDocstringLine('not a string')).toBeUndefined();
  });
});

describe('definitions', () => {
  test('kinds, qualified names and ranges', () => {
    const source = [
      'class A:', //                 0
      '    @staticmethod', //        1
      '    def s():', //             2
      '        def helper():', //    3
      '            class Local:', // 4
      '                pass', //     5
      '        return helper', //    6
      '    if DEBUG:', //            7
      '        def debug(self):', // 8
      '            pass', //         9
      'def top():', //              10
      '    pass', //                 11
    ].join('\n');
    const described = extract(source).sites.map(({ definition: d, headerLine, firstMethodLine }) =>
      `${d.kind} ${d.qualifiedName} ${d.startLine}-${d.endLine} header=${headerLine}${firstMethodLine === undefined ? '' : ` first=${firstMethodLine}`}`);
    expect(described).toEqual([
      'class A 0-10 header=0 first=1',
      'method A.s 1-7 header=2',
      'function A.s.<locals>.helper 3-6 header=3',
      'class A.s.<locals>.helper.<locals>.Local 4-6 header=4',
      'method A.debug 8-10 header=8',
      'function top 10-12 header=10',
    ]);
    expect(extract(source).sites.every((s) => s.definition.relPath === 'pkg/m.py')).toBe(true);
  });
});

describe('imports', () => {
  test.each([
    { source: 'import os', records: [{ module: 'os', names: [], line: 0 }] },
    { source: 'import a.b as c, d', records: [{ module: 'a.b', names: [], alias: 'c', line: 0 }, { module: 'd', names: [], line: 0 }] },
    { source: 'from x import y as z, w', records: [{ module: 'x', names: [{ name: 'y', alias: 'z' }, { name: 'w' }], line: 0 }] },
    { source: 'from ..pkg.mod import (\n    a,\n    b as c,\n)', records: [{ module: '..pkg.mod', names: [{ name: 'a' }, { name: 'b', alias: 'c' }], line: 0 }] },
    { source: 'from . import sibling', records: [{ module: '.', names: [{ name: 'sibling' }], line: 0 }] },
    { source: 'from .mod import *', records: [{ module: '.mod', names: [{ name: '*' }], line: 0 }] },
    { source: 'from __future__ import annotations', records: [{ module: '__future__', names: [{ name: 'annotations' }], line: 0 }] },
    {
      source: 'try:\n    import simplejson as json\nexcept ImportError:\n    import json',
      records: [{ module: 'simplejson', names: [], alias: 'json', line: 1 }, { module: 'json', names: [], line: 3 }],
    },
    { source: 'if TYPE_CHECKING:\n    from typing import Any', records: [{ module: 'typing', names: [{ name: 'Any' }], line: 1 }] },
    { source: 'def f():\n    import local_only', records: [] },
    { source: 'class C:\n    import not_module_level', records: [] },
  ])('$source', ({ source, records }) => {
    expect(extract(source).imports).toEqual(records);
  });
});

describe('references', () => {
  test('identifier -> lines where it is used, not where def/class defines it', () => {
    const source = [
      'import os', //                        0
      'def f(x):', //                        1
      '    return os.path.join(x, y)', //    2
      'class C(Base):', //                   3
      '    pass', //                         4
      'f(C); f(1)', //                       5
      's = "os in a string"  # os comment', // 6
      't = f"{os.sep}"', //                  7
    ].join('\n');
    const references = extract(source).references;
    expect(references.get('os')).toEqual([0, 2, 7]);
    expect(references.get('f')).toEqual([5]);
    expect(references.get('x')).toEqual([1, 2]);
    expect(references.get('C')).toEqual([5]);
    expect(references.get('Base')).toEqual([3]);
    expect(references.get('join')).toEqual([2]);
    expect(references.has('return')).toBe(false);
    expect(references.has('comment')).toBe(false);
  });

  test('unicode identifiers', () => {
    const { references } = extract('def größe():\n    pass\ngröße()\nÄrger = größe_2 + x9 + _y\n');
    expect(references.get('größe')).toEqual([2]);
    expect([...references.keys()].sort()).toEqual(['_y', 'größe', 'größe_2', 'x9', 'Ärger']);
  });
});

describe('statement cache', () => {
  test('re-extraction with a cache equals extraction from scratch, after lines move', () => {
    const before = 'import os\n\nclass A:\n    def m(self):\n        return os.sep\n\ndef g():\n    return A()\n';
    const after = 'import os\nimport sys\n\nclass A:\n    def m(self):\n        return os.sep + sys.argv[0]\n\ndef g():\n    return A()\n';
    const cache: StatementCache = createStatementCache();
    extract(before, cache);
    expect(extract(after, cache)).toEqual(extract(after));
    expect(cache.units.size).toBe(4);
  });

  /** A UMD-style library: one statement around every definition, 240 functions long. */
  const umd = (edited: string) => [
    ';(function (root, factory) {',
    '  root.lib = factory();',
    '}(this, function () {',
    "  var helpers = require('./helpers');",
    ...Array.from({ length: 240 }, (_, i) => `  function f${i}(x) { return helpers.step(x, ${i === 120 ? edited : i}); }`),
    '  return { f0: f0 };',
    '}));',
    '',
  ].join('\n');

  test.each([
    ['a wrapper around statements (UMD): its statements are kept one by one', 'm.js', umd('120'), umd('120 + limit'), true],
    ['a long `if __name__` block: its statements are kept one by one', 'tool.py',
      `import os\nif __name__ == '__main__':\n    import sys\n${Array.from({ length: 220 }, (_, i) => `    print(os.sep, ${i})`).join('\n')}\n`,
      `import os\nif __name__ == '__main__':\n    import sys\n${Array.from({ length: 220 }, (_, i) => `    print(os.sep, ${i === 100 ? 'sys.argv' : i})`).join('\n')}\n`, true],
    ['a long class is no wrapper: its methods are in its scope', 'big.py',
      `class Big:\n${Array.from({ length: 220 }, (_, i) => `    def m${i}(self):\n        return ${i}`).join('\n')}\n`,
      `class Big:\n${Array.from({ length: 220 }, (_, i) => `    def m${i}(self):\n        return ${i === 7 ? 'self' : i}`).join('\n')}\n`, false],
  ])('%s, and the result equals extraction from scratch', async (_name, relPath, before, after, wraps) => {
    const language = languageOfPath(relPath)!;
    const fileParser = await createParserForPath(relPath);
    const run = (source: string, cache?: StatementCache) => {
      const tree = fileParser.parse(source);
      try {
        return extractSymbols(tree, source, relPath, language, cache);
      } finally {
        tree.delete();
      }
    };
    try {
      const cache = createStatementCache();
      run(before, cache);
      expect(run(after, cache)).toEqual(run(after));
      expect(cache.units.size > 1).toBe(wraps);
    } finally {
      fileParser.dispose();
    }
  });
});

describe('the time budget', () => {
  test('past it extraction stops with ExtractionTimeout, and an open document keeps its cache as it was', () => {
    const source = 'def kept():\n    return 1\n';
    const cache = createStatementCache();
    extract(source, cache);
    const before = [...cache.units.keys()];
    const edited = `${source}\ndef added():\n    return 2\n`;
    const tree = parser.parse(edited);
    try {
      expect(() => extractSymbols(tree, edited, 'pkg/m.py', python, cache, -1)).toThrow(ExtractionTimeout);
      expect(() => extractSymbols(tree, edited, 'pkg/m.py', python, undefined, -1)).toThrow('reading its symbols took over -1 ms');
      expect([...cache.units.keys()]).toEqual(before);
      expect(extractSymbols(tree, edited, 'pkg/m.py', python, cache).sites.map((s) => s.definition.name)).toEqual(['kept', 'added']);
    } finally {
      tree.delete();
    }
  });
});
