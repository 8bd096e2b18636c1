import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createParser, type SyntaxParser } from '../syntaxTree.js';
import go from './go.js';
import { importRecords } from './importSpecs.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParser(go.grammarOf('main.go'));
});
afterAll(() => parser.dispose());

/** The records of every import declaration of `source`, as the extraction reads them. */
function recordsOf(source: string) {
  const tree = parser.parse(source);
  try {
    return tree.rootNode.descendantsOfType([...go.symbols.importTypes]).flatMap((node) => importRecords(node!, source));
  } finally {
    tree.delete();
  }
}

describe('importRecords', () => {
  test('single and grouped imports, with names, blank and dot imports', () => {
    const source = [
      'package server',
      '',
      'import "fmt"',
      '',
      'import (',
      '\t"context"',
      '\tstdjson "encoding/json" // aliased',
      '\t_ "embed"',
      '\t. "example.com/shop/internal/testutil"',
      '',
      '\t"example.com/shop/store"',
      ')',
      '',
      'func main() { fmt.Println(context.Background()) }',
    ].join('\n');
    expect(recordsOf(source)).toEqual([
      { module: 'fmt', names: [], line: 2 },
      { module: 'context', names: [], line: 5 },
      { module: 'encoding/json', names: [], alias: 'stdjson', line: 6 },
      { module: 'embed', names: [], alias: '_', line: 7 },
      { module: 'example.com/shop/internal/testutil', names: [], alias: '.', line: 8 },
      { module: 'example.com/shop/store', names: [], line: 10 },
    ]);
  });

  test('raw string paths and one-line groups', () => {
    const source = 'package p\nimport ( a `example.com/m/a`; "example.com/m/b" )\n';
    expect(recordsOf(source)).toEqual([
      { module: 'example.com/m/a', names: [], alias: 'a', line: 1 },
      { module: 'example.com/m/b', names: [], line: 1 },
    ]);
  });

  test('an empty path and a spec cut short give no record', () => {
    expect(recordsOf('package p\nimport ""\nimport (\n\t"ok/x"\n\tbad\n)\n').map((r) => r.module)).toEqual(['ok/x']);
  });
});
