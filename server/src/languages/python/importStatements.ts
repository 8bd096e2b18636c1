/**
 * ImportRecords from tree-sitter import statements: `import a.b as c, d`, `from ..x import (y as z)`,
 * `from . import m`, `from m import *`, `from __future__ import annotations`.
 * Parenthesised multi-line forms need nothing special: the grammar gives the same fields.
 */
import type { ImportRecord } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

/** Statement types that import. */
export const IMPORT_STATEMENT_TYPES: ReadonlySet<string> = new Set([
  'import_statement', 'import_from_statement', 'future_import_statement',
]);

/** One record per imported module: `import a, b` gives two, `from m import x, y` one with two names. */
export function importRecords(node: SyntaxNode, text: string): ImportRecord[] {
  const line = node.startPosition.row;
  const slice = (n: SyntaxNode) => text.slice(n.startIndex, n.endIndex);
  if (node.type === 'import_statement') {
    return node.childrenForFieldName('name').map((name) => {
      const { name: module, alias } = importedName(name, slice);
      return alias === undefined ? { module: compact(module), names: [], line } : { module: compact(module), names: [], alias, line };
    });
  }
  const moduleNode = node.type === 'future_import_statement' ? null : node.childForFieldName('module_name');
  if (node.type === 'import_from_statement' && !moduleNode) return []; // `from import x` after error recovery
  const module = moduleNode ? compact(slice(moduleNode)) : '__future__';
  const names = node.childrenForFieldName('name').map((name) => importedName(name, slice));
  if (node.namedChildren.some((child) => child?.type === 'wildcard_import')) names.push({ name: '*' });
  return [{ module, names, line }];
}

function importedName(node: SyntaxNode, slice: (n: SyntaxNode) => string): { name: string; alias?: string } {
  if (node.type !== 'aliased_import') return { name: compact(slice(node)) };
  const name = node.childForFieldName('name');
  const alias = node.childForFieldName('alias');
  const result: { name: string; alias?: string } = { name: name ? compact(slice(name)) : '' };
  if (alias) result.alias = slice(alias);
  return result;
}

/** `a . b` and `a.\<newline>b` are legal spellings of `a.b`; store the canonical one. */
function compact(dotted: string): string {
  return dotted.replace(/[\s\\]+/g, '');
}
