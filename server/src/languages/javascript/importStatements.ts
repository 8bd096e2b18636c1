/**
 * ImportRecords from JavaScript and TypeScript statements:
 *
 * - `import X from './x'` -> names `[{ name: 'default', alias: 'X' }]`; `import { a as b }` -> `[{ name: 'a', alias: 'b' }]`;
 *   `import * as ns` -> alias `ns`; `import type { T }` like any other; `import './x'` -> no names;
 *   TypeScript's `import fs = require('fs')` -> alias `fs`.
 * - re-exports: `export { a } from './a'` -> `[{ name: 'a' }]`, `export * from './a'` -> `[{ name: '*' }]`,
 *   `export * as ns from './a'` -> alias `ns`.
 * - CommonJS at the top level (also inside a top-level `if`/`try`, not in functions):
 *   `const x = require('./x')` -> alias `x`; `const { a, b: c } = require('./x')` -> names `a`, `b as c`;
 *   `const p = require('./x').p` -> `[{ name: 'p' }]`; `await import('./x')` reads the same way.
 *
 * `lexical_declaration` and `export_statement` are import node types, so most of them are no
 * import at all: those give no records.
 */
import type { ImportRecord } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

/** Statement types that may import. */
export const IMPORT_TYPES: readonly string[] = ['import_statement', 'export_statement', 'lexical_declaration', 'variable_declaration'];

type ImportedName = ImportRecord['names'][number];

/** The records of one statement: none, or one (a JavaScript statement imports one module). */
export function importRecords(node: SyntaxNode, text: string): ImportRecord[] {
  if (node.type === 'import_statement') return esImport(node, text);
  if (node.type === 'export_statement') return reExport(node, text);
  return node.type === 'lexical_declaration' || node.type === 'variable_declaration' ? requires(node, text) : [];
}

/** The text inside a string literal's quotes (escapes are left as written: module names have none). */
function stringContent(node: SyntaxNode | null, text: string): string | undefined {
  return node?.type === 'string' ? text.slice(node.startIndex + 1, node.endIndex - 1) : undefined;
}

const slice = (node: SyntaxNode, text: string): string => text.slice(node.startIndex, node.endIndex);

function record(module: string, names: ImportedName[], alias: string | undefined, line: number): ImportRecord {
  return alias === undefined ? { module, names, line } : { module, names, alias, line };
}

/** A name with its alias when there is one (`a as b`, `b: c`); a null name node yields nothing. */
function named(name: SyntaxNode | null, alias: SyntaxNode | null, text: string): ImportedName[] {
  if (!name) return [];
  const imported = name.type === 'string' ? stringContent(name, text)! : slice(name, text);
  return alias ? [{ name: imported, alias: slice(alias, text) }] : [{ name: imported }];
}

function esImport(node: SyntaxNode, text: string): ImportRecord[] {
  const line = node.startPosition.row;
  const module = stringContent(node.childForFieldName('source'), text);
  if (module !== undefined) return [importClause(node, module, text, line)];
  // `import fs = require('fs')` keeps its source inside the clause.
  const clause = node.namedChildren.find((child) => child?.type === 'import_require_clause');
  const required = stringContent(clause?.childForFieldName('source') ?? null, text);
  const local = clause?.namedChildren.find((child) => child?.type === 'identifier');
  return required === undefined ? [] : [record(required, [], local ? slice(local, text) : undefined, line)];
}

function importClause(node: SyntaxNode, module: string, text: string, line: number): ImportRecord {
  const names: ImportedName[] = [];
  let alias: string | undefined;
  const clause = node.namedChildren.find((child) => child?.type === 'import_clause');
  for (const part of clause?.namedChildren ?? []) {
    if (part?.type === 'identifier') names.push({ name: 'default', alias: slice(part, text) });
    else if (part?.type === 'namespace_import') {
      const local = part.namedChildren.find((child) => child?.type === 'identifier');
      if (local) alias = slice(local, text);
    } else if (part?.type === 'named_imports') {
      for (const specifier of part.namedChildren) {
        if (specifier?.type === 'import_specifier') names.push(...named(specifier.childForFieldName('name'), specifier.childForFieldName('alias'), text));
      }
    }
  }
  return record(module, names, alias, line);
}

/** `export … from './x'`; exports of local names (no `from`) import nothing. */
function reExport(node: SyntaxNode, text: string): ImportRecord[] {
  const module = stringContent(node.childForFieldName('source'), text);
  if (module === undefined) return [];
  const line = node.startPosition.row;
  const names: ImportedName[] = [];
  for (const part of node.namedChildren) {
    if (part?.type === 'namespace_export') {
      const local = part.namedChildren.find((child) => child?.type === 'identifier' || child?.type === 'string');
      return [record(module, [], local ? slice(local, text) : undefined, line)];
    }
    if (part?.type !== 'export_clause') continue;
    for (const specifier of part.namedChildren) {
      if (specifier?.type === 'export_specifier') names.push(...named(specifier.childForFieldName('name'), specifier.childForFieldName('alias'), text));
    }
    return [record(module, names, undefined, line)];
  }
  return [record(module, [{ name: '*' }], undefined, line)];
}

/** `const … = require('…')` declarators, where the declaration runs when the module loads. */
function requires(node: SyntaxNode, text: string): ImportRecord[] {
  // Nearly every declaration imports nothing: one look at its text spares marshalling its children.
  if (!/\b(?:require|import)\b/.test(slice(node, text))) return [];
  const records: ImportRecord[] = [];
  for (const declarator of node.namedChildren) {
    if (declarator?.type !== 'variable_declarator') continue;
    const required = requiredModule(declarator.childForFieldName('value'), text);
    const binding = declarator.childForFieldName('name');
    if (!required || !binding) continue;
    const { module, property } = required;
    const line = declarator.startPosition.row;
    if (property !== undefined) {
      const local = slice(binding, text);
      records.push(record(module, [local === property ? { name: property } : { name: property, alias: local }], undefined, line));
    } else if (binding.type === 'identifier') records.push(record(module, [], slice(binding, text), line));
    else if (binding.type === 'object_pattern') records.push(record(module, patternNames(binding, text), undefined, line));
  }
  return records.length > 0 && isTopLevel(node) ? records : [];
}

/** `require('m')`, `await import('m')`, `require('m').p` -> the module (and `p`). */
function requiredModule(value: SyntaxNode | null, text: string): { module: string; property?: string } | undefined {
  let call = value?.type === 'await_expression' ? value.namedChildren[0] ?? null : value;
  let property: string | undefined;
  if (call?.type === 'member_expression') {
    const name = call.childForFieldName('property');
    property = name ? slice(name, text) : undefined;
    call = call.childForFieldName('object');
  }
  if (call?.type !== 'call_expression') return undefined;
  const callee = call.childForFieldName('function');
  const isRequire = callee?.type === 'import' || (callee?.type === 'identifier' && slice(callee, text) === 'require');
  const module = isRequire ? stringContent(call.childForFieldName('arguments')?.namedChildren[0] ?? null, text) : undefined;
  if (module === undefined) return undefined;
  return property === undefined ? { module } : { module, property };
}

/** `{ a, b: c, ...rest }` -> `a`, `b as c` (the rest binds no name of the module). */
function patternNames(pattern: SyntaxNode, text: string): ImportedName[] {
  const names: ImportedName[] = [];
  for (const part of pattern.namedChildren) {
    if (part?.type === 'shorthand_property_identifier_pattern') names.push({ name: slice(part, text) });
    else if (part?.type === 'pair_pattern') {
      const value = part.childForFieldName('value');
      names.push(...named(part.childForFieldName('key'), value?.type === 'identifier' ? value : null, text));
    }
  }
  return names;
}

/** Statements a top-level `require` may sit in and still run when the module loads. */
const LOAD_TIME_PARENTS: ReadonlySet<string> = new Set([
  'export_statement', 'statement_block', 'if_statement', 'else_clause', 'try_statement', 'catch_clause', 'finally_clause',
]);

/** Whether a declaration runs at load time: no function (a callback, an IIFE) between it and the program. */
function isTopLevel(node: SyntaxNode): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (parent.type === 'program') return true;
    if (!LOAD_TIME_PARENTS.has(parent.type)) return false;
  }
  return false;
}
