/**
 * Every registered language end to end through the index and retrieval: the fixture workspace
 * holds a Go module, a Rust crate, a TypeScript package with a CommonJS file and a Python file,
 * and a cursor at a call into another file of the same language must bring that definition.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WorkspaceIndex } from '../indexing/workspaceIndex.js';
import { languageOfPath } from '../languages/registry.js';
import { LexicalIndex } from './lexicalIndex.js';
import { Retriever } from './retriever.js';
import type { RetrievalQuery } from './types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/polyglot');

let index: WorkspaceIndex;
let retriever: Retriever;

beforeAll(async () => {
  index = new WorkspaceIndex();
  const lexical = new LexicalIndex(index);
  index.onDidChange((changes) => lexical.applyChanges(changes));
  await index.indexRoots([ROOT]);
  retriever = new Retriever(index, lexical);
});
afterAll(() => index.dispose());

/** A query with the cursor right after the first occurrence of `marker` in an indexed file. */
function queryAfter(relPath: string, marker: string): RetrievalQuery {
  const file = index.file(relPath)!;
  const offset = file.text.indexOf(marker) + marker.length;
  const prefixLines = file.text.slice(0, offset).split('\n');
  return {
    file, relPath, prefixLines, suffixText: file.text.slice(offset), cursorLine: prefixLines.length - 1,
    keywords: languageOfPath(relPath)!.symbols.keywords,
  };
}

describe('a workspace of every language', () => {
  test('source files of each language are indexed; project files are not', () => {
    expect([...index.files()].map((f) => f.relPath).sort()).toEqual([
      'goapp/cmd/main.go', 'goapp/store/store.go',
      'rustapp/src/main.rs', 'rustapp/src/net/client.rs', 'rustapp/src/net/mod.rs', 'rustapp/src/net/pool.rs', 'rustapp/src/net/retry.rs',
      'tool.py',
      'webapp/src/cart.ts', 'webapp/src/legacy.js', 'webapp/src/receipt.ts', 'webapp/src/util/format.ts', 'webapp/src/util/index.ts',
    ]);
  });

  test.each([
    ['goapp/store/store.go', ['class Store', 'function Open', 'method Store.Lookup']],
    ['rustapp/src/net/client.rs', ['class Client', 'method Client.describe', 'function connect']],
    ['webapp/src/cart.ts', ['class Cart', 'method Cart.add', 'method Cart.total']],
    ['webapp/src/util/format.ts', ['function formatPrice', 'class Priced']],
    ['tool.py', ['function describe']],
  ])('definitions of %s', (relPath, expected) => {
    expect(index.file(relPath)!.definitions.map((d) => `${d.kind} ${d.qualifiedName}`)).toEqual(expected);
  });

  test('imports resolve to workspace files in each language', () => {
    const resolved = (relPath: string) => index.file(relPath)!.imports.map((i) => [i.module, i.resolvedPath ?? null, i.packageFiles ?? null]);
    expect(resolved('goapp/cmd/main.go')).toEqual([
      ['fmt', null, null], ['example.com/goapp/store', 'goapp/store/store.go', ['goapp/store/store.go']],
    ]);
    expect(resolved('webapp/src/cart.ts')).toEqual([['./util/format.js', 'webapp/src/util/format.ts', null]]);
    expect(resolved('webapp/src/legacy.js')).toEqual([['./cart', 'webapp/src/cart.ts', null]]);
    const rust = index.file('rustapp/src/main.rs')!.imports;
    expect(rust.map((i) => i.resolvedPath)).toEqual(['rustapp/src/net/mod.rs', 'rustapp/src/net/client.rs']);
  });

  test.each([
    ['goapp/cmd/main.go', 's := store.', 'goapp/store/store.go', 'function', 'Open'],
    ['rustapp/src/main.rs', 'let client: Client = ', 'rustapp/src/net/client.rs', 'function', 'connect'],
    ['webapp/src/cart.ts', 'return ', 'webapp/src/util/format.ts', 'function', 'formatPrice'],
  ])('a cursor in %s at `%s` brings the definition it calls', (relPath, marker, definedIn, kind, symbol) => {
    const candidates = retriever.retrieve(queryAfter(relPath, marker), { topK: 10, windowLines: 20 });
    expect(candidates.some((c) => c.chunk.relPath === definedIn && c.chunk.kind === kind && c.chunk.symbol === symbol)).toBe(true);
  });

  test.each([
    ['rustapp/src/net/retry.rs', 'ports.first()', '// rustapp/src/net/client.rs\npub struct Client\npub fn connect(host: &str, port: u16) -> Client\n'],
    ['webapp/src/receipt.ts', 'return ', '// webapp/src/util/format.ts\nfunction formatPrice(cents: number, currency: string): string\n'],
  ])('a name imported from a module that re-exports it (%s) is outlined from the file that defines it', (relPath, marker, outline) => {
    const [first] = retriever.retrieve(queryAfter(relPath, marker), { topK: 10, windowLines: 20 });
    expect(first!.chunk.kind).toBe('outline');
    expect(first!.text).toBe(outline);
  });

  test('a glob import (`use super::client::*;`) outlines the definitions the file uses from that module', () => {
    const [first] = retriever.retrieve(queryAfter('rustapp/src/net/pool.rs', 'hosts.iter()'), { topK: 10, windowLines: 20 });
    expect(first!.text).toBe('// rustapp/src/net/client.rs\npub struct Client\npub fn connect(host: &str, port: u16) -> Client\n');
  });

  test('a Rust struct is offered with the methods of its `impl` blocks in other files', () => {
    const candidates = retriever.retrieve(queryAfter('rustapp/src/main.rs', 'let client: Client = '), { topK: 10, windowLines: 20 });
    const client = candidates.find((c) => c.chunk.kind === 'class' && c.chunk.symbol === 'Client');
    expect(client?.text).toBe([
      'pub struct Client {', '    host: String,', '    port: u16,', '}',
      '    pub fn describe(&self) -> String', '    pub fn localhost() -> Client', '    pub fn with_retries(self, times: u32) -> (Client, u32)', '',
    ].join('\n'));
  });

  test('the import outline is written in the document\'s comments', () => {
    const [outline] = retriever.retrieve(queryAfter('webapp/src/cart.ts', 'return '), { topK: 10, windowLines: 20 });
    expect(outline!.chunk.kind).toBe('outline');
    expect(outline!.text).toBe('// webapp/src/util/format.ts\ninterface Priced\nfunction formatPrice(cents: number, currency: string): string\n');
  });
});
