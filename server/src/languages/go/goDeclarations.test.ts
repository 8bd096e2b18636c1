/**
 * Go's definition rules through a small walk that does what the generic extraction does (one
 * descendantsOfType in document order, a stack of scopes by end offset, identifiers that are not
 * a definition's name are references).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ImportRecord } from '../language.js';
import { createParser, lastRow, type SyntaxParser } from '../syntaxTree.js';
import go from './go.js';

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
  const { symbols } = go;
  const tree = parser.parse(source);
  const definitions: Extracted[] = [];
  const references = new Set<string>();
  const imports: ImportRecord[] = [];
  const scopes: { end: number; kind: 'class' | 'function'; qualifiedName: string }[] = [];
  const names = new Set<number>();
  const types = [...symbols.identifierTypes, ...Object.keys(symbols.definitions), ...symbols.importTypes];
  for (const node of tree.rootNode.descendantsOfType(types)) {
    while (scopes.length > 0 && node!.startIndex >= scopes[scopes.length - 1]!.end) scopes.pop();
    const rule = symbols.definitions[node!.type];
    if (rule) {
      const nameNode = rule.accepts?.(node!) === false ? null : (rule.nameNode?.(node!) ?? node!.childForFieldName('name'));
      if (!nameNode) continue;
      names.add(nameNode.startIndex);
      const name = source.slice(nameNode.startIndex, nameNode.endIndex);
      const scope = scopes[scopes.length - 1];
      const owner = rule.ownerName?.(node!, source);
      const kind = rule.kind === 'class' ? 'class' : owner || scope?.kind === 'class' ? 'method' : 'function';
      const qualifiedName = owner ? `${owner}.${name}` : symbols.qualify(scope, name);
      const outer = rule.outerNode?.(node!) ?? node!;
      const documentation = symbols.documentation(node!, outer, source);
      definitions.push({
        qualifiedName, kind, startLine: outer.startPosition.row, endLine: lastRow(outer), signature: symbols.signature(node!, source),
        ...(documentation === undefined ? {} : { documentation }),
      });
      scopes.push({ end: node!.endIndex, kind: rule.kind === 'class' ? 'class' : 'function', qualifiedName });
    } else if (symbols.importTypes.includes(node!.type)) {
      if (scopes.length === 0) imports.push(...symbols.importRecords(node!, source));
    } else if (!names.has(node!.startIndex)) {
      const name = /\p{ID_Continue}+/uy;
      name.lastIndex = node!.startIndex;
      const text = name.exec(source)?.[0];
      if (text && !symbols.keywords.has(text)) references.add(text);
    }
  }
  tree.delete();
  return { definitions, references, imports };
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
