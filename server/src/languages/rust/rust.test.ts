import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CodeLanguage, EnclosingScope, ImportRecord } from '../language.js';
import { createParser, lastRow, type SyntaxNode, type SyntaxParser } from '../syntaxTree.js';
import rust from './rust.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParser(rust.grammarOf('src/lib.rs'));
});
afterAll(() => parser.dispose());

interface Extracted {
  definitions: { qualifiedName: string; kind: string; lines: [number, number]; signature: string; doc?: string }[];
  imports: ImportRecord[];
  references: Set<string>;
}

/**
 * The generic extraction as the indexer runs it (language.ts), reduced to what the rules
 * decide: one descendantsOfType per top-level statement, a stack of scopes by end offset, a
 * definition type whose `accepts` says no read as an import when it is an import type too.
 */
function extract(source: string, language: CodeLanguage = rust): Extracted {
  const tree = parser.parse(source);
  const rules = language.symbols;
  const result: Extracted = { definitions: [], imports: [], references: new Set() };
  const wanted = [...rules.identifierTypes, ...Object.keys(rules.definitions), ...rules.importTypes];
  for (const unit of tree.rootNode.namedChildren) {
    const scopes: (EnclosingScope & { end: number })[] = [];
    const names = new Set<number>();
    for (const node of unit!.descendantsOfType(wanted)) {
      while (scopes.length > 0 && node!.startIndex >= scopes[scopes.length - 1]!.end) scopes.pop();
      const scope = visit(node!, source, language, scopes[scopes.length - 1], names, result);
      if (scope) scopes.push(scope);
    }
  }
  tree.delete();
  return result;
}

function visit(
  node: SyntaxNode, text: string, language: CodeLanguage, parent: EnclosingScope | undefined, names: Set<number>, result: Extracted,
): (EnclosingScope & { end: number }) | undefined {
  const rules = language.symbols;
  const rule = rules.definitions[node.type];
  if (rule && (rule.accepts?.(node) ?? true)) {
    const nameNode = rule.nameNode ? rule.nameNode(node) : node.childForFieldName('name');
    if (!nameNode) return undefined;
    names.add(nameNode.startIndex);
    const qualifiedName = rules.qualify(parent, text.slice(nameNode.startIndex, nameNode.endIndex));
    if (rule.kind === 'scope') return { qualifiedName, kind: 'class', end: node.endIndex };
    const outer = rule.outerNode?.(node) ?? node;
    const kind = rule.kind === 'class' ? 'class' : parent?.kind === 'class' ? 'method' : 'function';
    const doc = rules.documentation(node, outer, text);
    result.definitions.push({
      qualifiedName, kind, lines: [outer.startPosition.row, lastRow(outer)], signature: rules.signature(node, text), ...(doc === undefined ? {} : { doc }),
    });
    return { qualifiedName, kind: rule.kind === 'class' ? 'class' : 'function', end: node.endIndex };
  }
  if (rules.importTypes.includes(node.type)) {
    if (!parent) result.imports.push(...rules.importRecords(node, text));
  } else if (rules.identifierTypes.includes(node.type) && !names.has(node.startIndex)) {
    const name = /\p{ID_Continue}+/uy;
    name.lastIndex = node.startIndex;
    const found = name.exec(text)?.[0];
    if (found && !rules.keywords.has(found)) result.references.add(found);
  }
  return undefined;
}

/** A library module in the style of a small HTTP crate. */
const LIBRARY = `//! A tiny request router.

use std::collections::HashMap;
use crate::error::{Error, Result};

mod error;
pub mod middleware;

/// A route's handler.
pub type Handler = Box<dyn Fn(&Request) -> Response + Send + Sync>;

/// An HTTP request, as the router sees it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Request {
    pub method: Method,
    pub path: String,
}

pub struct Point(pub i32, pub i32);

/** Methods we route. */
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
}

pub struct Router<S> {
    routes: HashMap<(Method, String), Handler>,
    state: S,
}

impl<S: Clone + Send> Router<S> {
    /// Makes an empty router.
    pub fn new(state: S) -> Self {
        Router { routes: HashMap::new(), state }
    }

    // Registers a GET route.
    #[inline]
    pub fn get(
        mut self,
        path: &str,
        handler: Handler,
    ) -> Self
    where
        S: 'static,
    {
        fn normalize(p: &str) -> String {
            p.trim_end_matches('/').to_owned()
        }
        self.routes.insert((Method::Get, normalize(path)), handler);
        self
    }
}

impl fmt::Display for &mut Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self)
    }
}

/// Something that answers requests.
pub trait Service: Send {
    type Output;
    /// Answers one request.
    fn call(&self, req: &Request) -> Self::Output;
    fn ready(&self) -> bool {
        true
    }
}

extern "C" {
    fn abort_request(id: u32);
}

#[macro_export]
macro_rules! route {
    ($r:expr, $p:expr) => { $r.get($p) };
}

pub union Bits {
    word: u32,
    bytes: [u8; 4],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_get() {
        let r = Router::new(());
        assert!(r.routes.is_empty());
    }
}
`;

describe('definitions', () => {
  let extracted: Extracted;
  beforeAll(() => {
    extracted = extract(LIBRARY);
  });
  const definition = (qualifiedName: string) => extracted.definitions.find((d) => d.qualifiedName === qualifiedName);

  test('names and kinds, in document order', () => {
    expect(extracted.definitions.map((d) => `${d.kind} ${d.qualifiedName}`)).toEqual([
      'class Handler', 'class Request', 'class Point', 'class Method', 'class Router',
      'method Router.new', 'method Router.get', 'function Router.get::normalize', 'method Method.fmt',
      'class Service', 'method Service.call', 'method Service.ready',
      'function abort_request', 'function route', 'class Bits', 'class tests', 'method tests.routes_get',
    ]);
  });

  test.each([
    { name: 'Handler', signature: 'pub type Handler = Box<dyn Fn(&Request) -> Response + Send + Sync>;', doc: "A route's handler." },
    { name: 'Request', signature: 'pub struct Request', doc: 'An HTTP request, as the router sees it.' },
    { name: 'Point', signature: 'pub struct Point(pub i32, pub i32);', doc: undefined },
    { name: 'Method', signature: 'pub enum Method', doc: 'Methods we route.' },
    { name: 'Router', signature: 'pub struct Router<S>', doc: undefined },
    { name: 'Router.new', signature: 'pub fn new(state: S) -> Self', doc: 'Makes an empty router.' },
    { name: 'Router.get', signature: "pub fn get(mut self, path: &str, handler: Handler,) -> Self where S: 'static,", doc: 'Registers a GET route.' },
    { name: 'Method.fmt', signature: "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result", doc: undefined },
    { name: 'Service', signature: 'pub trait Service: Send', doc: 'Something that answers requests.' },
    { name: 'Service.call', signature: 'fn call(&self, req: &Request) -> Self::Output;', doc: 'Answers one request.' },
    { name: 'abort_request', signature: 'fn abort_request(id: u32);', doc: undefined },
    { name: 'route', signature: 'macro_rules! route', doc: undefined },
    { name: 'Bits', signature: 'pub union Bits', doc: undefined },
    { name: 'tests', signature: 'mod tests', doc: undefined },
  ])('$name: signature and documentation', ({ name, signature, doc }) => {
    expect(definition(name)?.signature).toBe(signature);
    expect(definition(name)?.doc).toBe(doc);
  });

  // Attributes are the item's siblings, so the range starts at the item (README.md).
  test('a definition covers its item from its first to its last line', () => {
    expect(definition('Router.get')?.lines).toEqual([41, 54]);
    expect(definition('Request')?.lines).toEqual([14, 17]);
  });

  test('top-level imports only: mod items without a body and use declarations', () => {
    expect(extracted.imports).toEqual([
      { module: 'std::collections', names: [{ name: 'HashMap' }], line: 2 },
      { module: 'crate::error', names: [{ name: 'Error' }, { name: 'Result' }], line: 3 },
      { module: 'self::error', names: [], line: 5 },
      { module: 'self::middleware', names: [], line: 6 },
    ]);
  });

  test('references: identifiers, fields and types; not definition names or Self', () => {
    for (const name of ['HashMap', 'Method', 'routes', 'trim_end_matches', 'insert', 'Formatter', 'Debug', 'is_empty', 'normalize']) {
      expect(extracted.references, name).toContain(name);
    }
    for (const name of ['Self', 'abort_request', 'Bits']) expect(extracted.references, name).not.toContain(name);
  });
});

describe('editing rules', () => {
  test.each([
    { line: 'impl<T> From<T> for Wrapper<T> {', opens: true },
    { line: '    match value {  ', opens: true },
    { line: 'let x = vec![1, 2];', opens: false },
    { line: 'fn f() -> u8 { 0 }', opens: false },
  ])('opensBlock($line) is $opens', ({ line, opens }) => {
    expect(rust.editing.opensBlock(line)).toBe(opens);
  });

  test('lifetimes are no quotes; strings may span lines', () => {
    expect(rust.editing.lexical.quotes).toEqual(['"']);
    expect(rust.editing.lexical.multiLineQuotes).toEqual(['"']);
    expect(rust.editing.lexical.blockComment).toEqual({ open: '/*', close: '*/' });
    expect(rust.editing.topLevelStarts).toContain('impl');
  });

  test('project rules', () => {
    expect(rust.project).toEqual({ rootMarkers: ['Cargo.toml'], skipDirectories: ['target'], projectFiles: ['Cargo.toml'] });
    expect(rust.extensions).toEqual(['.rs']);
  });
});
