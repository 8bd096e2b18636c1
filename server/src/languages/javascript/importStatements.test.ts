import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ImportRecord } from '../language.js';
import { createParser, type SyntaxParser } from '../syntaxTree.js';
import { IMPORT_TYPES, importRecords } from './importStatements.js';
import javascript from './javascript.js';
import typescript from './typescript.js';

let tsParser: SyntaxParser;
let jsParser: SyntaxParser;
beforeAll(async () => {
  tsParser = await createParser(typescript.grammarOf('a.ts'));
  jsParser = await createParser(javascript.grammarOf('a.js'));
});
afterAll(() => {
  tsParser.dispose();
  jsParser.dispose();
});

/** Records of the statement's top-level import nodes (the first statement of `source`). */
function recordsOf(parser: SyntaxParser, source: string): ImportRecord[] {
  const tree = parser.parse(source);
  try {
    const statement = tree.rootNode.namedChildren[0]!;
    expect(IMPORT_TYPES).toContain(statement.type);
    return importRecords(statement, source).map(({ line: _line, ...rest }) => ({ ...rest, line: 0 }));
  } finally {
    tree.delete();
  }
}

const r = (module: string, names: ImportRecord['names'] = [], alias?: string): ImportRecord =>
  alias === undefined ? { module, names, line: 0 } : { module, names, alias, line: 0 };

describe.each([
  { grammar: 'typescript', parser: () => tsParser },
  { grammar: 'javascript', parser: () => jsParser },
])('import records ($grammar grammar)', ({ parser }) => {
  test.each([
    { source: `import React from 'react';`, records: [r('react', [{ name: 'default', alias: 'React' }])] },
    { source: `import { readFile as read, stat } from "node:fs/promises";`, records: [r('node:fs/promises', [{ name: 'readFile', alias: 'read' }, { name: 'stat' }])] },
    { source: `import def, { a } from './mod.js';`, records: [r('./mod.js', [{ name: 'default', alias: 'def' }, { name: 'a' }])] },
    { source: `import * as path from 'path';`, records: [r('path', [], 'path')] },
    { source: `import main, * as all from '../lib';`, records: [r('../lib', [{ name: 'default', alias: 'main' }], 'all')] },
    { source: `import { default as Store } from './store';`, records: [r('./store', [{ name: 'default', alias: 'Store' }])] },
    { source: `import './polyfills';`, records: [r('./polyfills')] },
    { source: `export { parse, format as fmt } from './text';`, records: [r('./text', [{ name: 'parse' }, { name: 'format', alias: 'fmt' }])] },
    { source: `export * from './models';`, records: [r('./models', [{ name: '*' }])] },
    { source: `export * as models from './models';`, records: [r('./models', [], 'models')] },
    { source: `export { local };`, records: [] },
    { source: `export default function main() {}`, records: [] },
    { source: `export const answer = 42;`, records: [] },
    { source: `const path = require('path');`, records: [r('path', [], 'path')] },
    { source: `const { join, resolve: abs } = require('path'), fs = require('fs');`, records: [r('path', [{ name: 'join' }, { name: 'resolve', alias: 'abs' }]), r('fs', [], 'fs')] },
    { source: `var helper = require('./helper').helper;`, records: [r('./helper', [{ name: 'helper' }])] },
    { source: `let run = require('./tasks').default;`, records: [r('./tasks', [{ name: 'default', alias: 'run' }])] },
    { source: `const lazy = await import('./lazy.js');`, records: [r('./lazy.js', [], 'lazy')] },
    { source: `const total = items.reduce((a, b) => a + b, 0);`, records: [] },
    { source: `const dynamic = require(name);`, records: [] },
  ])('$source', ({ source, records }) => {
    expect(recordsOf(parser(), source)).toEqual(records);
  });
});

describe('TypeScript-only forms', () => {
  test.each([
    { source: `import type { Config } from './config';`, records: [r('./config', [{ name: 'Config' }])] },
    { source: `import { type Item, Store } from './store';`, records: [r('./store', [{ name: 'Item' }, { name: 'Store' }])] },
    { source: `import fs = require('fs');`, records: [r('fs', [], 'fs')] },
    { source: `export type { Item } from './item';`, records: [r('./item', [{ name: 'Item' }])] },
  ])('$source', ({ source, records }) => {
    expect(recordsOf(tsParser, source)).toEqual(records);
  });
});

test('requires in top-level if/try are imports, in functions and callbacks not; records carry their line', () => {
  const source = [
    '', '', "const a = require('./a');",
    "router.use(() => { const b = require('./b'); });",
    "function f() { const c = require('./c'); }",
    "if (process.env.DEBUG) { const debug = require('./debug'); }",
    "try { var opt = require('optional'); } catch { opt = null; }",
    "(function () { const iife = require('./iife'); })();",
  ].join('\n');
  const tree = jsParser.parse(source);
  const found = tree.rootNode.descendantsOfType('lexical_declaration').flatMap((node) => importRecords(node!, source));
  tree.delete();
  expect(found).toEqual([
    { module: './a', names: [], alias: 'a', line: 2 },
    { module: './debug', names: [], alias: 'debug', line: 5 },
  ]);
  const tree2 = jsParser.parse(source);
  const vars = tree2.rootNode.descendantsOfType('variable_declaration').flatMap((node) => importRecords(node!, source));
  tree2.delete();
  expect(vars).toEqual([{ module: 'optional', names: [], alias: 'opt', line: 6 }]);
});
