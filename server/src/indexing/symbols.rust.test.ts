import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CodeLanguage, ImportRecord } from '../languages/language.js';
import rust from '../languages/rust/rust.js';
import { createParser, type SyntaxParser } from '../languages/syntaxTree.js';
import { extractSymbols } from './symbols.js';

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

/** What the index extracts from `source` (indexing/symbols.ts), in the shape these tests compare. */
function extract(source: string, language: CodeLanguage = rust): Extracted {
  const tree = parser.parse(source);
  try {
    const symbols = extractSymbols(tree, source, 'src/lib.rs', language);
    const definitions = symbols.sites.map(({ definition: d }) => ({
      qualifiedName: d.qualifiedName, kind: d.kind, lines: [d.startLine, d.endLine - 1] as [number, number], signature: d.signature,
      ...(d.docstring === undefined ? {} : { doc: d.docstring }),
    }));
    return { definitions, imports: symbols.imports, references: new Set(symbols.references.keys()) };
  } finally {
    tree.delete();
  }
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
