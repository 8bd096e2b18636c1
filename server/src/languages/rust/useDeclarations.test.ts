import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ImportRecord } from '../language.js';
import { createParser, type SyntaxParser } from '../syntaxTree.js';
import rust from './rust.js';
import { IMPORT_NODE_TYPES, MAX_USE_TREE_DEPTH, importRecords } from './useDeclarations.js';

let parser: SyntaxParser;
beforeAll(async () => {
  parser = await createParser(rust.grammarOf('src/lib.rs'));
});
afterAll(() => parser.dispose());

/** Records of every top-level import node of `source`, in order. */
function recordsOf(source: string): Omit<ImportRecord, 'line'>[] {
  const tree = parser.parse(source);
  try {
    return tree.rootNode.namedChildren
      .filter((node) => node !== null && IMPORT_NODE_TYPES.includes(node.type))
      .flatMap((node) => importRecords(node!, source))
      .map(({ line: _line, ...record }) => record);
  } finally {
    tree.delete();
  }
}

describe('importRecords', () => {
  test.each([
    { name: 'a path to an item', source: 'use std::collections::HashMap;', records: [{ module: 'std::collections', names: [{ name: 'HashMap' }] }] },
    { name: 'crate-relative', source: 'use crate::config::Config;', records: [{ module: 'crate::config', names: [{ name: 'Config' }] }] },
    { name: 'super-relative', source: 'use super::super::error::Error;', records: [{ module: 'super::super::error', names: [{ name: 'Error' }] }] },
    { name: 'self-relative', source: 'use self::parser::parse;', records: [{ module: 'self::parser', names: [{ name: 'parse' }] }] },
    { name: 'star import', source: 'use crate::prelude::*;', records: [{ module: 'crate::prelude', names: [{ name: '*' }] }] },
    { name: 'alias', source: 'pub use self::inner::Thing as Exported;', records: [{ module: 'self::inner', names: [{ name: 'Thing', alias: 'Exported' }] }] },
    { name: 'a module itself', source: 'use serde;', records: [{ module: 'serde', names: [] }] },
    { name: 'a module itself, aliased', source: 'use regex as re;', records: [{ module: 'regex', names: [], alias: 're' }] },
    { name: 'leading ::', source: 'use ::std::fmt;', records: [{ module: '::std', names: [{ name: 'fmt' }] }] },
    {
      name: 'nested braces grouped by module',
      source: 'use std::{fmt::{self, Display}, io::{Read, Write as W}, sync::Arc};',
      records: [
        { module: 'std', names: [{ name: 'fmt' }] },
        { module: 'std::fmt', names: [{ name: 'Display' }] },
        { module: 'std::io', names: [{ name: 'Read' }, { name: 'Write', alias: 'W' }] },
        { module: 'std::sync', names: [{ name: 'Arc' }] },
      ],
    },
    {
      name: 'pub(crate) with self as alias and a deeper path inside braces',
      source: 'pub(crate) use self::a::{b::{self as bb, c}, d};',
      records: [
        { module: 'self::a', names: [{ name: 'b', alias: 'bb' }, { name: 'd' }] },
        { module: 'self::a::b', names: [{ name: 'c' }] },
      ],
    },
    { name: 'a list without a path', source: 'use {a::b, c};', records: [{ module: 'a', names: [{ name: 'b' }] }, { module: 'c', names: [] }] },
    { name: 'an empty list', source: 'use a::b::{};', records: [] },
    { name: 'a file module', source: '#[cfg(test)]\npub(crate) mod util;', records: [{ module: 'self::util', names: [] }] },
    { name: 'an inline module is no import', source: 'mod tests { use super::*; }', records: [] },
  ])('$name', ({ source, records }) => {
    expect(recordsOf(source)).toEqual(records);
  });

  test('a multi-line use keeps its first line, spaces in paths are dropped', () => {
    const source = 'fn main() {}\n\nuse crate::{\n    net :: tcp,\n    store::Store,\n};\n';
    const tree = parser.parse(source);
    const use = tree.rootNode.namedChildren.find((node) => node?.type === 'use_declaration')!;
    expect(importRecords(use, source)).toEqual([
      { module: 'crate::net', names: [{ name: 'tcp' }], line: 2 },
      { module: 'crate::store', names: [{ name: 'Store' }], line: 2 },
    ]);
    tree.delete();
  });

  test('a use tree nested past any written code keeps its first levels and does not overflow the stack', () => {
    // `use a::{x0, b::{x1, b::{x2, …}}};`, one leaf per level, each level on its own line.
    const levels = 20_000;
    const source = `use a::${Array.from({ length: levels }, (_, i) => `{x${i},\nb::`).join('')}z${'}'.repeat(levels)};\n`;
    const records = recordsOf(source);
    const names = records.flatMap((record) => record.names.map((n) => n.name));
    expect(names).toHaveLength(MAX_USE_TREE_DEPTH);
    expect(names[0]).toBe('x0');
    expect(names.at(-1)).toBe(`x${MAX_USE_TREE_DEPTH - 1}`);
    expect(records[1]).toEqual({ module: 'a::b', names: [{ name: 'x1' }] });
  });
});
