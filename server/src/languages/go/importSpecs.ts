/**
 * ImportRecords from Go import declarations: `import "fmt"`, `import ( j "encoding/json"; _ "embed"; . "m/util" )`.
 * One record per spec; Go imports a package (a directory), never names from it, so `names` is
 * always empty and the package's own name is what the file writes before a dot.
 */
import type { ImportRecord } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

/** Node types that import. */
export const IMPORT_DECLARATION_TYPES: readonly string[] = ['import_declaration'];

/**
 * One record per import spec. `alias` is the spec's explicit name as written: a package name,
 * or `_` (imported for its side effects) and `.` (its names merged into the file's scope), which
 * bind no package name but are kept so readers can tell.
 */
export function importRecords(node: SyntaxNode, text: string): ImportRecord[] {
  const records: ImportRecord[] = [];
  for (const spec of importSpecs(node)) {
    const pathNode = spec.childForFieldName('path');
    const module = pathNode ? stringContent(text.slice(pathNode.startIndex, pathNode.endIndex)) : '';
    if (module === '') continue; // `import ""` or a spec cut short by a syntax error
    const name = spec.childForFieldName('name');
    const record: ImportRecord = { module, names: [], line: spec.startPosition.row };
    if (name) record.alias = text.slice(name.startIndex, name.endIndex);
    records.push(record);
  }
  return records;
}

/** The specs of `import "x"` and of `import ( … )`. */
function importSpecs(declaration: SyntaxNode): SyntaxNode[] {
  const specs: SyntaxNode[] = [];
  for (const child of declaration.namedChildren) {
    if (child?.type === 'import_spec') specs.push(child);
    else if (child?.type === 'import_spec_list') specs.push(...child.namedChildren.filter((c): c is SyntaxNode => c?.type === 'import_spec'));
  }
  return specs;
}

/** `"a/b"` or `` `a/b` `` -> `a/b` (import paths hold no escapes worth decoding). */
function stringContent(literal: string): string {
  const quote = literal[0];
  if (quote !== '"' && quote !== '`') return '';
  return literal.length >= 2 && literal.endsWith(quote) ? literal.slice(1, -1) : literal.slice(1);
}
