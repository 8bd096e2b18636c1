/**
 * The symbol layer of one file: definitions (with signatures and documentation), module-level
 * imports and identifier references, from one tree-sitter tree, read by the rules of the file's
 * language (languages/language.ts `SymbolRules`).
 *
 * Qualified names are the language's (`qualify`): Python's `__qualname__`, `Type.method` for a
 * Go receiver or a Rust `impl`. Imports are collected at module level, including inside
 * top-level blocks (`try: import x except ImportError: ...`, `if TYPE_CHECKING:`), not inside
 * functions or classes.
 *
 * Speed: one `descendantsOfType` call per unit returns definitions, imports and identifiers in
 * document order; scopes come from a stack of definition ranges, not from walking statements.
 * Creating JS objects for tree nodes is what costs in web-tree-sitter, and this marshals only the
 * nodes we keep. Each top-level statement depends on nothing outside itself, so an open
 * document re-extracts only the statements whose text changed (see {@link StatementCache}).
 */
import type { CodeLanguage, DefinitionRule, EnclosingScope, SymbolRules } from '../languages/language.js';
import { lastRow, type SyntaxNode, type Tree } from '../languages/syntaxTree.js';
import type { Definition, DefinitionKind, ImportRecord } from './types.js';

/** A definition plus the positions chunking needs. */
export interface DefinitionSite {
  /** Its range starts at the first decorator; see `headerLine` for the `def`/`class` line. */
  definition: Definition;
  headerLine: number;
  /** For a class: the first line of its first method (decorators included), if it has one. */
  firstMethodLine?: number;
}

/** Everything symbols.ts extracts from one file. */
export interface SymbolExtraction {
  /** In document (pre-)order: a class precedes its methods. */
  sites: DefinitionSite[];
  imports: ImportRecord[];
  /** Lines [startLine, endLine) from the first to the last top-level statement that imports. */
  importBlock?: { startLine: number; endLine: number };
  references: Map<string, number[]>;
  hasSyntaxErrors: boolean;
}

/** What one unit (the module, or one top-level statement) contributes, in absolute lines as of `row`. */
export interface UnitSymbols {
  row: number;
  sites: DefinitionSite[];
  imports: ImportRecord[];
  importBlock?: { startLine: number; endLine: number };
  references: Map<string, number[]>;
}

/**
 * Per open document: top-level statement text -> its symbols, reused (line-shifted) while
 * unchanged. Sound because a module-level statement's symbols depend only on its own text.
 */
export interface StatementCache {
  /** The relPath the units were extracted for (definitions carry it). */
  relPath?: string;
  units: Map<string, UnitSymbols>;
}

/** An empty cache for a newly opened document. */
export function createStatementCache(): StatementCache {
  return { units: new Map() };
}

/** What one language's extraction asks tree-sitter for, worked out once per language. */
interface ExtractionPlan {
  rules: SymbolRules;
  wantedTypes: string[];
  identifierTypes: ReadonlySet<string>;
  importTypes: ReadonlySet<string>;
}

const plans = new WeakMap<CodeLanguage, ExtractionPlan>();

function planFor(language: CodeLanguage): ExtractionPlan {
  let plan = plans.get(language);
  if (!plan) {
    const rules = language.symbols;
    const wantedTypes = [...new Set([...rules.identifierTypes, ...Object.keys(rules.definitions), ...rules.importTypes])];
    plan = { rules, wantedTypes, identifierTypes: new Set(rules.identifierTypes), importTypes: new Set(rules.importTypes) };
    plans.set(language, plan);
  }
  return plan;
}

/** The name is read from the source at the node's start: asking a node for its end is a WASM call. */
const IDENTIFIER = /\p{ID_Continue}+/uy;

/**
 * Extract definitions, imports and references. With `cache` (kept per open document), unchanged
 * top-level statements are reused and the cache is refilled with the current statements.
 */
export function extractSymbols(tree: Tree, text: string, relPath: string, language: CodeLanguage, cache?: StatementCache): SymbolExtraction {
  const root = tree.rootNode;
  const hasSyntaxErrors = root.hasError;
  const plan = planFor(language);
  const units = cache ? statementUnits(tree, text, relPath, plan, cache) : [extractUnit(root, text, relPath, plan)];
  return { ...finishUnits(units), hasSyntaxErrors };
}

/**
 * Units of the top-level statements, from the cache where the statement's text is unchanged.
 * A cursor visits the statements without creating a JS node object for each; only changed
 * statements get one (to extract them).
 */
function statementUnits(tree: Tree, text: string, relPath: string, plan: ExtractionPlan, cache: StatementCache): UnitSymbols[] {
  const units: UnitSymbols[] = [];
  const next = new Map<string, UnitSymbols>();
  if (cache.relPath !== relPath) cache.units.clear(); // The roots changed: definitions name another file.
  cache.relPath = relPath;
  const cursor = tree.walk();
  try {
    for (let more = cursor.gotoFirstChild(); more; more = cursor.gotoNextSibling()) {
      if (!cursor.nodeIsNamed || COMMENT_TYPES.has(cursor.nodeType)) continue;
      const key = text.slice(cursor.startIndex, cursor.endIndex);
      const known = cache.units.get(key) ?? next.get(key);
      const unit = known ? shiftUnit(known, cursor.startPosition.row) : extractUnit(cursor.currentNode, text, relPath, plan);
      next.set(key, unit);
      units.push(unit);
    }
  } finally {
    cursor.delete();
  }
  cache.units = next;
  return units;
}

/** Comments hold no symbols; a unit of its own would only cost a cache entry. */
const COMMENT_TYPES: ReadonlySet<string> = new Set(['comment', 'line_comment', 'block_comment']);

interface Scope extends EnclosingScope {
  end: number;
  /** The class definition a method adds itself to (a Rust `impl` block has none). */
  site?: DefinitionSite;
}

function extractUnit(unit: SyntaxNode, text: string, relPath: string, plan: ExtractionPlan): UnitSymbols {
  const result: UnitSymbols = { row: unit.startPosition.row, sites: [], imports: [], references: new Map() };
  const scopes: Scope[] = [];
  const definitionNames = new Set<number>();
  for (const node of unit.descendantsOfType(plan.wantedTypes)) {
    if (!node) continue;
    const start = node.startIndex;
    while (scopes.length > 0 && start >= scopes[scopes.length - 1]!.end) scopes.pop();
    const type = node.type;
    const rule = plan.rules.definitions[type];
    if (rule && (rule.accepts?.(node) ?? true)) {
      const scope = addDefinition(node, rule, scopes[scopes.length - 1], text, relPath, plan.rules, result, definitionNames);
      if (scope) scopes.push(scope);
    } else if (plan.identifierTypes.has(type)) {
      if (!definitionNames.has(start)) addReference(result.references, text, start, node.startPosition.row, plan.rules.keywords);
    } else if (plan.importTypes.has(type) && scopes.length === 0) {
      addImport(node, text, plan.rules, result);
    }
  }
  return result;
}

function addReference(references: Map<string, number[]>, text: string, start: number, line: number, keywords: ReadonlySet<string>): void {
  IDENTIFIER.lastIndex = start;
  const name = IDENTIFIER.exec(text)?.[0];
  if (!name || keywords.has(name)) return;
  const lines = references.get(name);
  if (!lines) references.set(name, [line]);
  else if (lines[lines.length - 1] !== line) lines.push(line);
}

function addDefinition(
  node: SyntaxNode, rule: DefinitionRule, parent: Scope | undefined, text: string, relPath: string,
  rules: SymbolRules, result: UnitSymbols, definitionNames: Set<number>,
): Scope | undefined {
  const nameNode = rule.nameNode ? rule.nameNode(node) : node.childForFieldName('name');
  // Error recovery can drop the name; the body's definitions then belong to the enclosing scope.
  if (!nameNode) return undefined;
  definitionNames.add(nameNode.startIndex);
  const name = text.slice(nameNode.startIndex, nameNode.endIndex);
  if (rule.kind === 'scope') return { end: node.endIndex, kind: 'class', qualifiedName: rules.qualify(parent, name) };
  const owner = rule.ownerName?.(node, text);
  const scope: EnclosingScope | undefined = owner !== undefined ? { qualifiedName: owner, kind: 'class' } : parent;
  const kind: DefinitionKind = rule.kind === 'class' ? 'class' : scope?.kind === 'class' ? 'method' : 'function';
  const qualifiedName = rules.qualify(scope, name);
  const outer = rule.outerNode?.(node) ?? node;
  const definition: Definition = {
    name, qualifiedName, kind, relPath,
    startLine: outer.startPosition.row, endLine: lastRow(outer) + 1,
    signature: rules.signature(node, text),
  };
  const documentation = rules.documentation(node, outer, text);
  if (documentation !== undefined) definition.docstring = documentation;
  const site: DefinitionSite = { definition, headerLine: node.startPosition.row };
  result.sites.push(site);
  // Pre-order: the first method met inside a class is its first method.
  if (kind === 'method' && parent?.site && parent.site.firstMethodLine === undefined) parent.site.firstMethodLine = definition.startLine;
  return { end: node.endIndex, kind: rule.kind === 'class' ? 'class' : 'function', qualifiedName, site };
}

function addImport(node: SyntaxNode, text: string, rules: SymbolRules, result: UnitSymbols): void {
  const records = rules.importRecords(node, text);
  if (records.length === 0) return; // A statement the rules looked at and found importing nothing (`const x = 1`).
  result.imports.push(...records);
  // The block spans whole top-level statements, so `try: import x / except: ...` is included.
  let top = node;
  while (top.parent && top.parent.parent) top = top.parent;
  const startLine = top.startPosition.row;
  const endLine = lastRow(top) + 1;
  const block = result.importBlock;
  result.importBlock = block
    ? { startLine: Math.min(block.startLine, startLine), endLine: Math.max(block.endLine, endLine) }
    : { startLine, endLine };
}

/** Concatenate units (already in document order) into one file's extraction. */
function finishUnits(units: readonly UnitSymbols[]): Omit<SymbolExtraction, 'hasSyntaxErrors'> {
  const result: Omit<SymbolExtraction, 'hasSyntaxErrors'> = { sites: [], imports: [], references: new Map() };
  // A name's line array is borrowed from the first unit that has it and copied only when a
  // second unit adds lines: most names live in one statement, and edits then allocate little.
  const owned = new Set<string>();
  for (const unit of units) {
    for (const site of unit.sites) result.sites.push(site);
    for (const record of unit.imports) result.imports.push(record);
    const block = unit.importBlock;
    if (block) {
      const current = result.importBlock;
      result.importBlock = current ? { startLine: current.startLine, endLine: Math.max(current.endLine, block.endLine) } : block;
    }
    for (const [name, lines] of unit.references) {
      const target = result.references.get(name);
      if (!target) result.references.set(name, lines);
      else appendLines(result.references, owned, name, target, lines);
    }
  }
  return result;
}

function appendLines(references: Map<string, number[]>, owned: Set<string>, name: string, target: number[], lines: readonly number[]): void {
  let merged = target;
  if (!owned.has(name)) {
    merged = target.slice();
    references.set(name, merged);
    owned.add(name);
  }
  // Two statements can share a line (`a = 1; b = a`): keep lines distinct.
  for (const line of lines) if (merged[merged.length - 1] !== line) merged.push(line);
}

/** A cached unit moved to `row`: same objects when it did not move, shifted copies otherwise. */
function shiftUnit(unit: UnitSymbols, row: number): UnitSymbols {
  const delta = row - unit.row;
  if (delta === 0) return unit;
  const shifted: UnitSymbols = {
    row,
    sites: unit.sites.map((site) => shiftSite(site, delta)),
    imports: unit.imports.map((record) => ({ ...record, line: record.line + delta, names: record.names.map((n) => ({ ...n })) })),
    references: new Map([...unit.references].map(([name, lines]) => [name, lines.map((line) => line + delta)])),
  };
  if (unit.importBlock) shifted.importBlock = { startLine: unit.importBlock.startLine + delta, endLine: unit.importBlock.endLine + delta };
  return shifted;
}

function shiftSite(site: DefinitionSite, delta: number): DefinitionSite {
  const { definition } = site;
  const shifted: DefinitionSite = {
    definition: { ...definition, startLine: definition.startLine + delta, endLine: definition.endLine + delta },
    headerLine: site.headerLine + delta,
  };
  if (site.firstMethodLine !== undefined) shifted.firstMethodLine = site.firstMethodLine + delta;
  return shifted;
}
