/** Go's definition rules through the index's extraction (indexing/symbols.ts). */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import go from '../languages/go/go.js';
import type { ImportRecord } from '../languages/language.js';
import { createParser, type SyntaxParser } from '../languages/syntaxTree.js';
import { extractSymbols } from './symbols.js';

interface Extracted {
  qualifiedName: string;
  kind: 'function' | 'method' | 'class';
  startLine: number;
  endLine: number;
  signature: string;
  documentation?: string;
}

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParser(go.grammarOf('store.go'));
});
afterAll(() => parser.dispose());

function extract(source: string): { definitions: Extracted[]; references: Set<string>; imports: ImportRecord[] } {
  const tree = parser.parse(source);
  try {
    const symbols = extractSymbols(tree, source, 'store/store.go', go);
    const definitions = symbols.sites.map(({ definition: d }): Extracted => ({
      qualifiedName: d.qualifiedName, kind: d.kind, startLine: d.startLine, endLine: d.endLine - 1, signature: d.signature,
      ...(d.docstring === undefined ? {} : { documentation: d.docstring }),
    }));
    return { definitions, references: new Set(symbols.references.keys()), imports: symbols.imports };
  } finally {
    tree.delete();
  }
}

const STORE = `package store

import (
	"errors"
	"sync"
)

// ErrNotFound is returned when a key is missing.
var ErrNotFound = errors.New("not found")

// Store keeps items in memory.
// It is safe for concurrent use.
type Store[K comparable, V any] struct {
	mu    sync.RWMutex // guards items
	items map[K]V \`json:"items"\`
}

type (
	// Key names an item.
	Key string
	Pair = struct{ K Key; V int }
)

// Getter reads one item.
type Getter interface {
	Get(key Key) (int, error)
}

// New makes an empty store.
func New[K comparable, V any]() *Store[K, V] {
	type entry struct{ k K }
	return &Store[K, V]{items: map[K]V{}}
}

// Get returns the item stored under key.
func (s *Store[K, V]) Get(key K) (V, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.items[key]
	if !ok {
		return v, ErrNotFound
	}
	return v, nil
}

//go:noinline
func (Key) String() string { return "key" }

func helper(
	a int, // first
	b int,
) int {
	return max(a, b)
}
`;

describe('Go definitions through the extraction', () => {
  let definitions: Extracted[];
  let references: Set<string>;
  let imports: ImportRecord[];
  beforeAll(() => {
    ({ definitions, references, imports } = extract(STORE));
  });

  test('functions, methods named by their receiver type, package-level types only', () => {
    expect(definitions.map((d) => [d.qualifiedName, d.kind, d.startLine, d.endLine])).toEqual([
      ['Store', 'class', 12, 15],
      ['Key', 'class', 19, 19],
      ['Pair', 'class', 20, 20],
      ['Getter', 'class', 24, 26],
      ['New', 'function', 29, 32],
      ['Store.Get', 'method', 35, 43],
      ['Key.String', 'method', 46, 46],
      ['helper', 'function', 48, 53],
    ]);
  });

  test.each([
    ['Store', 'type Store[K comparable, V any] struct { mu sync.RWMutex; items map[K]V }'],
    ['Key', 'type Key string'],
    ['Pair', 'type Pair = struct { K Key; V int }'],
    ['Getter', 'type Getter interface { Get(key Key) (int, error) }'],
    ['New', 'func New[K comparable, V any]() *Store[K, V]'],
    ['Store.Get', 'func (s *Store[K, V]) Get(key K) (V, error)'],
    ['Key.String', 'func (Key) String() string'],
    ['helper', 'func helper(a int, b int,) int'],
  ])('signature of %s', (name, signature) => {
    expect(definitions.find((d) => d.qualifiedName === name)?.signature).toBe(signature);
  });

  test.each([
    ['Store', 'Store keeps items in memory.'],
    ['Key', 'Key names an item.'],
    ['Pair', undefined],
    ['Getter', 'Getter reads one item.'],
    ['New', 'New makes an empty store.'],
    ['Store.Get', 'Get returns the item stored under key.'],
    ['Key.String', undefined],
    ['helper', undefined],
  ])('documentation of %s', (name, documentation) => {
    expect(definitions.find((d) => d.qualifiedName === name)?.documentation).toBe(documentation);
  });

  test('references: packages, fields, types and calls, not definition names or predeclared types', () => {
    for (const name of ['errors', 'sync', 'RWMutex', 'mu', 'items', 'RLock', 'ErrNotFound', 'K', 'V', 'max', 'entry', 'Store', 'Key']) {
      expect(references, name).toContain(name);
    }
    for (const name of ['string', 'int', 'error', 'any', 'comparable', 'helper', 'Getter', 'String']) {
      expect(references, name).not.toContain(name);
    }
  });

  test('imports are read at the top level', () => {
    expect(imports.map((i) => i.module)).toEqual(['errors', 'sync']);
  });
});

describe('type signatures', () => {
  test('long member lists are cut, embedded types and nested structs kept', () => {
    const fields = Array.from({ length: 12 }, (_, i) => `\tField${i} string`).join('\n');
    const source = `package p\n\ntype Wide struct {\n\tio.Reader\n\t*Base\n\tInner struct {\n\t\tX int\n\t}\n${fields}\n}\n\ntype Empty struct{}\n\ntype HandlerFunc func(w Writer, r *Request)\n`;
    const [wide, empty, handler] = extract(source).definitions;
    expect(wide!.signature).toBe('type Wide struct { io.Reader; *Base; Inner struct {X int}; Field0 string; Field1 string; Field2 string; Field3 string; Field4 string; … }');
    expect(empty!.signature).toBe('type Empty struct{}');
    expect(handler!.signature).toBe('type HandlerFunc func(w Writer, r *Request)');
  });

  test('the only spec of a group covers the group and keeps the comment inside it', () => {
    const [only] = extract('package p\n\ntype (\n\t// Only is alone.\n\tOnly int\n)\n').definitions;
    expect(only).toMatchObject({ qualifiedName: 'Only', startLine: 2, endLine: 5, signature: 'type Only int', documentation: 'Only is alone.' });
  });

  test('a receiver in parentheses still names its type', () => {
    const [method] = extract('package p\n\nfunc (t (*T)) M() {}\n').definitions;
    expect(method).toMatchObject({ qualifiedName: 'T.M', kind: 'method' });
  });
});
