/**
 * One unit's symbols (a file, a top-level statement, or part of one), by the rules of its
 * language: one `descendantsOfType` call returns definitions, imports and identifiers in document
 * order, and scopes come from a stack of definition ranges, not from walking statements.
 * Creating JS objects for tree nodes is what costs in web-tree-sitter, and this marshals only the
 * nodes it keeps.
 */
import type { CodeLanguage, DefinitionRule, EnclosingScope, SymbolRules } from '../languages/language.js';
import { lastRow, type Point, type SyntaxNode } from '../languages/syntaxTree.js';
import type { Definition, DefinitionKind, ImportRecord } from './types.js';

/** A definition plus the positions chunking needs. */
export interface DefinitionSite {
  /** Its range starts at the first decorator; see `headerLine` for the `def`/`class` line. */
  definition: Definition;
  headerLine: number;
  /** For a class: the first line of its first method (decorators included), if it has one. */
  firstMethodLine?: number;
}

/** What one unit (the module, or one top-level statement) contributes, in absolute lines as of `row`. */
export interface UnitSymbols {
  row: number;
  sites: DefinitionSite[];
  imports: ImportRecord[];
  importBlock?: { startLine: number; endLine: number };
  references: Map<string, number[]>;
}

/** What one language's extraction asks tree-sitter for, worked out once per language. */
export interface ExtractionPlan {
  rules: SymbolRules;
  /** Every node type that holds symbols: definitions, identifiers, imports. */
  wantedTypes: string[];
  identifierTypes: ReadonlySet<string>;
  importTypes: ReadonlySet<string>;
}

const plans = new WeakMap<CodeLanguage, ExtractionPlan>();

/**
 * When a file's extraction must have ended (`performance.now()` time). A shape the content rules
 * let through can still make the language rules slow (each `parent` a node asks for walks down
 * from the root), and the server has one thread: past the deadline the file is read as text only.
 */
export interface ExtractionDeadline {
  at: number;
  /** The budget it was set with, for the message. */
  budgetMs: number;
}

/** Thrown past the deadline; buildFileIndex then indexes the file as text only. */
export class ExtractionTimeout extends Error {
  constructor(budgetMs: number) {
    super(`reading its symbols took over ${budgetMs} ms`);
    this.name = 'ExtractionTimeout';
  }
}

/** A deadline `budgetMs` from now. */
export function deadlineIn(budgetMs: number): ExtractionDeadline {
  return { at: performance.now() + budgetMs, budgetMs };
}

/** Nodes handled between two looks at the clock. */
const NODES_PER_CLOCK_CHECK = 512;

export function planFor(language: CodeLanguage): ExtractionPlan {
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
 * The identifier at `start` (`IDENTIFIER`'s match), scanned by hand over ASCII: a regex match
 * allocates an array per identifier, and identifiers are most of the nodes a file yields.
 */
function identifierAt(text: string, start: number): string | undefined {
  let end = start;
  for (;;) {
    const code = text.charCodeAt(end);
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95) end++;
    else if (code >= 128) break;
    else return end > start ? text.slice(start, end) : undefined;
  }
  IDENTIFIER.lastIndex = start; // Not ASCII: Unicode's ID_Continue decides.
  return IDENTIFIER.exec(text)?.[0];
}

/** Comments hold no symbols; a unit of its own would only cost a cache entry. */
export const COMMENT_TYPES: ReadonlySet<string> = new Set(['comment', 'line_comment', 'block_comment']);

interface Scope extends EnclosingScope {
  end: number;
  /** The class definition a method adds itself to (a Rust `impl` block has none). */
  site?: DefinitionSite;
}

/**
 * The symbols of one unit: a whole file, one top-level statement, or (with `range`) the part of a
 * statement between two points (a wrapper's own text around the statements it wraps).
 */
export function extractUnit(
  unit: SyntaxNode, text: string, relPath: string, plan: ExtractionPlan, deadline: ExtractionDeadline,
  range?: { start: Point; end: Point },
): UnitSymbols {
  const result: UnitSymbols = { row: unit.startPosition.row, sites: [], imports: [], references: new Map() };
  const scopes: Scope[] = [];
  const definitionNames = new Set<number>();
  // One walk of the tree (two cost more than the `type` each identifier then needs).
  const nodes = range ? unit.descendantsOfType(plan.wantedTypes, range.start, range.end) : unit.descendantsOfType(plan.wantedTypes);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (!node) continue;
    if (i % NODES_PER_CLOCK_CHECK === 0 && performance.now() > deadline.at) throw new ExtractionTimeout(deadline.budgetMs);
    const start = node.startIndex;
    while (scopes.length > 0 && start >= scopes[scopes.length - 1]!.end) scopes.pop();
    const type = node.type;
    const rule = plan.rules.definitions[type];
    if (rule && (rule.accepts?.(node, text) ?? true)) {
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
  const name = identifierAt(text, start);
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
  const outer = rule.outerNode?.(node, text) ?? node;
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
