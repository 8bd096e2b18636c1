/**
 * ImportRecords from Rust's `use` declarations and file module declarations.
 *
 * A `use` tree is flattened into its leaves (`use a::{b, c::d as e, f::*}` has three) and the
 * leaves are grouped by the path before their last segment, so a record is one module and the
 * items taken from it: `a` with `[b]`, `a::c` with `[d as e]`, `a::f` with `[*]`. The module is
 * kept as written, `::`-separated (`crate::x`, `super::super::y`, `::std::fmt`).
 *
 * A record with no names imports a module itself: `mod util;` gives `self::util` (the file
 * module it declares, a child of the declaring module), `use serde;` gives `serde`. Such a record
 * resolves only when every segment of its module is a file (moduleResolver.ts).
 */
import type { ImportRecord } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

/** Node types that import: `use …;` and a `mod x;` without a body (which names a file). */
export const IMPORT_NODE_TYPES: readonly string[] = ['use_declaration', 'mod_item'];

/** One leaf of a `use` tree: its full path, and an alias or a star. */
interface UseLeaf {
  path: string[];
  alias?: string;
  star?: boolean;
}

/** The records of a `use` declaration or a body-less `mod` item; none for `mod x { … }`. */
export function importRecords(node: SyntaxNode, text: string): ImportRecord[] {
  const line = node.startPosition.row;
  if (node.type === 'mod_item') {
    const name = node.childForFieldName('name');
    if (!name || node.childForFieldName('body')) return [];
    return [{ module: `self::${text.slice(name.startIndex, name.endIndex)}`, names: [], line }];
  }
  const argument = node.childForFieldName('argument');
  return argument ? recordsOfLeaves(useLeaves(argument, [], text, 0), line) : [];
}

/**
 * How deep braces may nest in a use tree before the rest is left out. Written code nests two or
 * three deep; a generated or hostile file nested thousands deep would otherwise overflow the call
 * stack (and copy a prefix per level), and one file must not stop the index.
 */
export const MAX_USE_TREE_DEPTH = 32;

/** The leaves of a use tree below `prefix` (the path of the enclosing `a::b::{…}`), `depth` lists down. */
function useLeaves(node: SyntaxNode, prefix: string[], text: string, depth: number): UseLeaf[] {
  switch (node.type) {
    case 'use_as_clause': {
      const path = node.childForFieldName('path');
      const alias = node.childForFieldName('alias');
      if (!path) return [];
      const leaf: UseLeaf = { path: [...prefix, ...segments(path, text)] };
      if (alias) leaf.alias = text.slice(alias.startIndex, alias.endIndex);
      return [leaf];
    }
    case 'use_wildcard': {
      const path = node.namedChildren.find((child) => child !== null);
      return [{ path: path ? [...prefix, ...segments(path, text)] : prefix, star: true }];
    }
    case 'scoped_use_list': {
      const path = node.childForFieldName('path');
      const list = node.childForFieldName('list');
      const inner = path ? [...prefix, ...segments(path, text)] : prefix;
      return list ? useLeaves(list, inner, text, depth) : [];
    }
    case 'use_list':
      if (depth >= MAX_USE_TREE_DEPTH) return [];
      return node.namedChildren.flatMap((child) => (child ? useLeaves(child, prefix, text, depth + 1) : []));
    default:
      // identifier, scoped_identifier, self, super, crate: a path.
      return [{ path: [...prefix, ...segments(node, text)] }];
  }
}

/** `a :: b` -> ['a', 'b']; `::std` -> ['', 'std'] (the leading `::` names an external crate). */
function segments(node: SyntaxNode, text: string): string[] {
  return text.slice(node.startIndex, node.endIndex).replace(/\s+/g, '').split('::');
}

/** Leaves grouped by module in order of appearance; a module imported itself gets its own record. */
function recordsOfLeaves(leaves: readonly UseLeaf[], line: number): ImportRecord[] {
  const records: ImportRecord[] = [];
  const byModule = new Map<string, ImportRecord>();
  for (const leaf of leaves) {
    const path = leaf.path[leaf.path.length - 1] === 'self' ? leaf.path.slice(0, -1) : leaf.path;
    if (path.length === 0 || (path.length === 1 && path[0] === '')) continue;
    if (leaf.star) {
      addName(records, byModule, path.join('::'), { name: '*' }, line);
    } else if (path.length === 1 || (path.length === 2 && path[0] === '')) {
      // `use serde;`, `use ::serde;`, `use a::{self}`: the module itself, bound to its name or the alias.
      const module = path.join('::');
      records.push(leaf.alias === undefined ? { module, names: [], line } : { module, names: [], alias: leaf.alias, line });
    } else {
      const name: ImportRecord['names'][number] = { name: path[path.length - 1]! };
      if (leaf.alias !== undefined) name.alias = leaf.alias;
      addName(records, byModule, path.slice(0, -1).join('::'), name, line);
    }
  }
  return records;
}

function addName(
  records: ImportRecord[], byModule: Map<string, ImportRecord>, module: string, name: ImportRecord['names'][number], line: number,
): void {
  let record = byModule.get(module);
  if (!record) {
    record = { module, names: [], line };
    byModule.set(module, record);
    records.push(record);
  }
  record.names.push(name);
}
