import { afterAll, describe, expect, test } from 'vitest';
import { valueIsNoFunction } from '../languages/javascript/definitions.js';
import javascript from '../languages/javascript/javascript.js';
import typescript from '../languages/javascript/typescript.js';
import type { CodeLanguage, DefinitionKind, ImportRecord } from '../languages/language.js';
import { createParser, type SyntaxParser } from '../languages/syntaxTree.js';
import { extractSymbols } from './symbols.js';

interface Found {
  name: string;
  qualifiedName: string;
  kind: DefinitionKind;
  lines: [number, number];
  signature: string;
  doc?: string;
}

const parsers = new Map<string, SyntaxParser>();
afterAll(() => parsers.forEach((parser) => parser.dispose()));

interface Extraction {
  definitions: Found[];
  imports: ImportRecord[];
  references: Set<string>;
}

/** What the index extracts from `text` (indexing/symbols.ts), in the shape these tests compare. */
async function extract(language: CodeLanguage, relPath: string, text: string): Promise<Extraction> {
  const grammar = language.grammarOf(relPath);
  if (!parsers.has(grammar.wasm)) parsers.set(grammar.wasm, await createParser(grammar));
  const tree = parsers.get(grammar.wasm)!.parse(text);
  try {
    const symbols = extractSymbols(tree, text, relPath, language);
    const definitions = symbols.sites.map(({ definition: d }): Found => ({
      name: d.name, qualifiedName: d.qualifiedName, kind: d.kind, lines: [d.startLine, d.endLine - 1], signature: d.signature,
      ...(d.docstring === undefined ? {} : { doc: d.docstring }),
    }));
    return { definitions, imports: symbols.imports, references: new Set(symbols.references.keys()) };
  } finally {
    tree.delete();
  }
}

const STORE_TS = `import { EventEmitter } from 'node:events';
import type { Item } from './types';

/** Keeps items by id. */
@Injectable()
export class ItemStore extends EventEmitter implements Store<Item> {
  private readonly items = new Map<string, Item>();

  constructor(private readonly log: Logger) {
    super();
  }

  // How many items there are.
  get size(): number {
    return this.items.size;
  }

  /**
   * Adds an item.
   * Replaces one with the same id.
   */
  @Traced('add')
  public async add(item: Item): Promise<void> {
    const normalize = (value: Item) => ({ ...value, id: value.id.trim() });
    this.items.set(item.id, normalize(item));
  }

  private onChange = (id: string): void => {
    this.emit('change', id);
  };

  [Symbol.iterator]() {
    return this.items.values();
  }
}

export abstract class Repository<T> {
  abstract find(id: string): Promise<T | undefined>;
}

/** A store of anything. */
export interface Store<T> {
  readonly size: number;
  add(item: T): Promise<void>;
}

export type Listener = (id: string) => void;

export enum Level { Debug, Info }

// Makes a store.
export const createStore = (log: Logger): ItemStore => new ItemStore(log);

export function parse(text: string): Item;
export function parse(text: string, strict?: boolean): Item {
  return JSON.parse(text) as Item;
}

const helpers = { trim(value: string) { return value.trim(); } };
const LIMIT = 10;
`;

describe('TypeScript definitions', () => {
  test('classes, members, interfaces, types, enums and functions with ranges, signatures, docs', async () => {
    const { definitions } = await extract(typescript, 'src/store.ts', STORE_TS);
    expect(definitions).toEqual([
      { name: 'ItemStore', qualifiedName: 'ItemStore', kind: 'class', lines: [4, 34], signature: 'class ItemStore extends EventEmitter implements Store<Item>', doc: 'Keeps items by id.' },
      { name: 'constructor', qualifiedName: 'ItemStore.constructor', kind: 'method', lines: [8, 10], signature: 'constructor(private readonly log: Logger)' },
      { name: 'size', qualifiedName: 'ItemStore.size', kind: 'method', lines: [13, 15], signature: 'get size(): number', doc: 'How many items there are.' },
      { name: 'add', qualifiedName: 'ItemStore.add', kind: 'method', lines: [22, 25], signature: 'public async add(item: Item): Promise<void>', doc: 'Adds an item.' },
      { name: 'normalize', qualifiedName: 'ItemStore.add~normalize', kind: 'function', lines: [23, 23], signature: 'const normalize = (value: Item) =>' },
      { name: 'onChange', qualifiedName: 'ItemStore.onChange', kind: 'method', lines: [27, 29], signature: 'private onChange = (id: string): void =>' },
      { name: 'Repository', qualifiedName: 'Repository', kind: 'class', lines: [36, 38], signature: 'abstract class Repository<T>' },
      { name: 'find', qualifiedName: 'Repository.find', kind: 'method', lines: [37, 37], signature: 'abstract find(id: string): Promise<T | undefined>' },
      { name: 'Store', qualifiedName: 'Store', kind: 'class', lines: [41, 44], signature: 'interface Store<T>', doc: 'A store of anything.' },
      { name: 'add', qualifiedName: 'Store.add', kind: 'method', lines: [43, 43], signature: 'add(item: T): Promise<void>' },
      { name: 'Listener', qualifiedName: 'Listener', kind: 'class', lines: [46, 46], signature: 'type Listener = (id: string) => void' },
      { name: 'Level', qualifiedName: 'Level', kind: 'class', lines: [48, 48], signature: 'enum Level' },
      { name: 'createStore', qualifiedName: 'createStore', kind: 'function', lines: [51, 51], signature: 'const createStore = (log: Logger): ItemStore =>', doc: 'Makes a store.' },
      { name: 'parse', qualifiedName: 'parse', kind: 'function', lines: [53, 53], signature: 'function parse(text: string): Item' },
      { name: 'parse', qualifiedName: 'parse', kind: 'function', lines: [54, 56], signature: 'function parse(text: string, strict?: boolean): Item' },
    ]);
  });

  test('references: names, members and types, not definition names or keywords', async () => {
    const { references } = await extract(typescript, 'src/store.ts', STORE_TS);
    for (const used of ['EventEmitter', 'Item', 'Logger', 'items', 'emit', 'trim', 'Injectable', 'Traced', 'Map', 'ItemStore']) expect(references).toContain(used);
    for (const unused of ['createStore', 'Level', 'Listener', 'Repository', 'default', 'this']) expect(references).not.toContain(unused);
  });

  test('imports are read from the top level only, and plain declarations give none', async () => {
    const { imports } = await extract(typescript, 'src/store.ts', STORE_TS);
    expect(imports).toEqual([
      { module: 'node:events', names: [{ name: 'EventEmitter' }], line: 0 },
      { module: './types', names: [{ name: 'Item' }], line: 1 },
    ]);
  });

  test('what a look at the text cannot settle is left to the tree: a comment inside `export`, a decorator call over lines', async () => {
    // The text checks (no `//`, `*/`, `@` or `)` above; a `;`, `{` or `}` before) only skip the tree where it has nothing to add.
    const source = [
      '/** Shown. */',
      'export /* not its doc */ function shown(): void {}',
      'class Panel {',
      '  /** Opens the panel. */',
      '  @Command({',
      '    id: "open",',
      '  })',
      '  open(): void {}',
      '  /** Closes it. */ close(): void {}',
      '}',
      'let counter = 0; export function next(): number { return ++counter; }',
    ].join('\n');
    const { definitions } = await extract(typescript, 'src/panel.ts', source);
    expect(definitions.map(({ qualifiedName, lines, signature, doc }) => ({ qualifiedName, lines, signature, doc }))).toEqual([
      { qualifiedName: 'shown', lines: [1, 1], signature: 'function shown(): void', doc: 'Shown.' },
      { qualifiedName: 'Panel', lines: [2, 9], signature: 'class Panel', doc: undefined },
      { qualifiedName: 'Panel.open', lines: [7, 7], signature: 'open(): void', doc: 'Opens the panel.' },
      { qualifiedName: 'Panel.close', lines: [8, 8], signature: 'close(): void', doc: 'Closes it.' },
      { qualifiedName: 'next', lines: [10, 10], signature: 'function next(): number', doc: undefined },
    ]);
  });

  test('a .d.ts: declared functions and classes with method signatures', async () => {
    const source = `/** Formats a date. */\nexport declare function format(date: Date, pattern?: string): string;\nexport declare class Clock {\n  now(): Date;\n  zone: string;\n}\n`;
    const { definitions } = await extract(typescript, 'types/clock.d.ts', source);
    expect(definitions.map(({ qualifiedName, kind, signature, doc }) => ({ qualifiedName, kind, signature, doc }))).toEqual([
      { qualifiedName: 'format', kind: 'function', signature: 'function format(date: Date, pattern?: string): string', doc: 'Formats a date.' },
      { qualifiedName: 'Clock', kind: 'class', signature: 'class Clock', doc: undefined },
      { qualifiedName: 'Clock.now', kind: 'method', signature: 'now(): Date', doc: undefined },
    ]);
  });

  test('.tsx parses with the tsx grammar: components and JSX references', async () => {
    const source = `import { Button } from './Button';\n\nexport function Toolbar({ onSave }: Props) {\n  return <div className="bar"><Button onClick={onSave}>Save</Button></div>;\n}\n`;
    expect(typescript.grammarOf('ui/Toolbar.tsx').wasm).toBe('tree-sitter-tsx.wasm');
    const { definitions, references } = await extract(typescript, 'ui/Toolbar.tsx', source);
    expect(definitions.map((d) => d.signature)).toEqual(['function Toolbar({ onSave }: Props)']);
    expect(references).toContain('Button');
    expect(references).toContain('onSave');
  });
});

const SERVER_JS = `'use strict';
const express = require('express');
const { loadConfig, defaults: base } = require('./config');

/**
 * Starts the server.
 */
async function start(port) {
  const app = express();
  app.get('/health', (req, res) => {
    const { check } = require('./health');
    res.json(check());
  });
  return app.listen(port);
}

function* ids() { let i = 0; while (true) yield i++; }

class Cache {
  #entries = new Map();
  @logged
  get(key) { return this.#entries.get(key); }
  static from(entries) { return new Cache(entries); }
}

const Legacy = class extends Cache {};
const handler = function (event) { return event.type; };
const api = { list() { return []; } };

module.exports = { start, Cache };
`;

describe('JavaScript definitions', () => {
  test('functions, generators, classes, class expressions and function values', async () => {
    const { definitions } = await extract(javascript, 'src/server.js', SERVER_JS);
    expect(definitions.map(({ qualifiedName, kind, lines, signature, doc }) => ({ qualifiedName, kind, lines, signature, doc }))).toEqual([
      { qualifiedName: 'start', kind: 'function', lines: [7, 14], signature: 'async function start(port)', doc: 'Starts the server.' },
      { qualifiedName: 'ids', kind: 'function', lines: [16, 16], signature: 'function* ids()', doc: undefined },
      { qualifiedName: 'Cache', kind: 'class', lines: [18, 23], signature: 'class Cache', doc: undefined },
      { qualifiedName: 'Cache.get', kind: 'method', lines: [20, 21], signature: 'get(key)', doc: undefined },
      { qualifiedName: 'Cache.from', kind: 'method', lines: [22, 22], signature: 'static from(entries)', doc: undefined },
      { qualifiedName: 'Legacy', kind: 'class', lines: [25, 25], signature: 'const Legacy = class extends Cache', doc: undefined },
      { qualifiedName: 'handler', kind: 'function', lines: [26, 26], signature: 'const handler = function (event)', doc: undefined },
    ]);
  });

  test('top-level requires are imports; a require inside a callback is not', async () => {
    const { imports } = await extract(javascript, 'src/server.js', SERVER_JS);
    expect(imports).toEqual([
      { module: 'express', names: [], alias: 'express', line: 1 },
      { module: './config', names: [{ name: 'loadConfig' }, { name: 'defaults', alias: 'base' }], line: 2 },
    ]);
  });

  test('declarators: the text rules out values that are no function, and leaves the rest to the tree', async () => {
    // Each declarator names whether it holds a function; the look at the text (valueIsNoFunction)
    // may only say "no" where the tree says no too.
    const cases: [string, boolean][] = [
      ['let a0, a1;', false], ['const b = require("./b");', false], ['let c = 0;', false], ['var d = new Map();', false],
      ['const e = a.b;', false], ['const { f } = g;', false], ['const [h] = i;', false], ['let j\n= k;', false],
      ['const l = async;', false], ['for (const m of n) {}', false], ['const o = `t`;', false], ['const p = "s";', false],
      ['const q = () => 1;', true], ['const r = x => x;', true], ['const s = async (x) => x;', true], ['const t = async x => x;', true],
      ['const u = function () {};', true], ['const v = function* () {};', true], ['let w\n= () => 1;', true],
      ['const x = /* c */ () => 1;', true], ['const y /* c */ = () => 1;', true], ['const $z = () => 1;', true],
      ['const aa = (1 + 2);', false], ['const ab = (() => 1);', false], ['const ac = class {};', false],
      ['const ad = x /* c */ => x;', true], ['const ae = x // c\n  => x;', true],
    ];
    const source = cases.map(([line]) => line).join('\n');
    const names = cases.flatMap(([line, holds]) => (holds ? [/(?:const|let|var) ([\w$]+)/u.exec(line)![1]!] : []));
    const { definitions } = await extract(javascript, 'src/values.js', source);
    expect(definitions.filter((d) => d.kind === 'function').map((d) => d.name)).toEqual(names);
    for (const [line, holds] of cases) {
      const declarator = line.search(/(?<=(?:const|let|var) )\S/u);
      if (holds) expect(valueIsNoFunction(declarator, line), line).toBe(false);
    }
    expect(cases.filter(([line, holds]) => !holds && valueIsNoFunction(line.search(/(?<=(?:const|let|var) )\S/u), line)).length).toBeGreaterThan(10);
  });

  test('JSX in .jsx files parses with the JavaScript grammar', async () => {
    const source = `import React from 'react';\n\n// The app shell.\nexport default function App({ title }) {\n  return <Layout title={title} />;\n}\n`;
    const { definitions, imports, references } = await extract(javascript, 'src/App.jsx', source);
    expect(definitions).toEqual([{ name: 'App', qualifiedName: 'App', kind: 'function', lines: [3, 5], signature: 'function App({ title })', doc: 'The app shell.' }]);
    expect(imports).toEqual([{ module: 'react', names: [{ name: 'default', alias: 'React' }], line: 0 }]);
    expect(references).toContain('Layout');
    expect(references).toContain('title');
  });
});
