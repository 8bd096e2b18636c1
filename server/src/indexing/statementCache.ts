/**
 * What an open document keeps from one extraction to the next: its top-level statements' symbols
 * by statement text, reused (line-shifted) while the statement is unchanged, so an edit
 * re-extracts only the statements it touched. Sound because a module-level statement's symbols
 * depend only on its own text. A long statement that only wraps others (an IIFE or a UMD factory
 * around a whole library, a long `if __name__ == "__main__":`) is looked into: its own text
 * around them is extracted each time, and the statements it wraps are kept like top-level ones.
 */
import type { SyntaxNode, Tree } from '../languages/syntaxTree.js';
import { COMMENT_TYPES, extractUnit, type DefinitionSite, type ExtractionDeadline, type ExtractionPlan, type UnitSymbols } from './unitExtraction.js';

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

/** Statements shorter than this are extracted whole: only a long one may be a wrapper worth looking into. */
const WRAPPER_MIN_LINES = 200;
/** How far down a wrapper's only large part may be followed (call, arguments, function, block). */
const WRAPPER_MAX_DEPTH = 8;
/** A part holding at least this share of its parent's lines is the one the parent wraps. */
const WRAPPED_SHARE = 0.9;

/** What a walk over a document's statements carries. */
interface UnitWalk {
  text: string;
  relPath: string;
  plan: ExtractionPlan;
  deadline: ExtractionDeadline;
  cache: StatementCache;
  next: Map<string, UnitSymbols>;
  units: UnitSymbols[];
}

/** Units of the top-level statements, from the cache where a statement's text is unchanged. */
export function statementUnits(
  tree: Tree, text: string, relPath: string, plan: ExtractionPlan, cache: StatementCache, deadline: ExtractionDeadline,
): UnitSymbols[] {
  if (cache.relPath !== relPath) cache.units.clear(); // The roots changed: definitions name another file.
  cache.relPath = relPath;
  const walk: UnitWalk = { text, relPath, plan, deadline, cache, next: new Map(), units: [] };
  collectStatements(tree.rootNode, walk);
  cache.units = walk.next;
  return walk.units;
}

/**
 * The statements directly in `parent`, in document order. A cursor visits them without creating
 * a JS node object for each; only changed statements get one (to extract them).
 */
function collectStatements(parent: SyntaxNode, walk: UnitWalk): void {
  const cursor = parent.walk();
  try {
    for (let more = cursor.gotoFirstChild(); more; more = cursor.gotoNextSibling()) {
      if (!cursor.nodeIsNamed || COMMENT_TYPES.has(cursor.nodeType)) continue;
      const key = walk.text.slice(cursor.startIndex, cursor.endIndex);
      const known = walk.cache.units.get(key) ?? walk.next.get(key);
      if (known) {
        // The shifted copy is kept: it is what an edit below this statement shifts by nothing next time.
        const unit = shiftUnit(known, cursor.startPosition.row);
        walk.next.set(key, unit);
        walk.units.push(unit);
      } else if (cursor.endPosition.row - cursor.startPosition.row < WRAPPER_MIN_LINES || !collectWrapped(cursor.currentNode, walk)) {
        const unit = extractUnit(cursor.currentNode, walk.text, walk.relPath, walk.plan, walk.deadline);
        walk.next.set(key, unit);
        walk.units.push(unit);
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * A wrapper's own text before and after the statements it wraps, extracted now, and those
 * statements as units of their own. False (nothing collected) when `node` wraps nothing.
 */
function collectWrapped(node: SyntaxNode, walk: UnitWalk): boolean {
  const body = wrappedStatements(node, walk.plan);
  if (!body) return false;
  walk.units.push(extractUnit(node, walk.text, walk.relPath, walk.plan, walk.deadline, { start: node.startPosition, end: body.startPosition }));
  collectStatements(body, walk);
  walk.units.push(extractUnit(node, walk.text, walk.relPath, walk.plan, walk.deadline, { start: body.endPosition, end: node.endPosition }));
  return true;
}

/**
 * The block of statements `node` merely wraps: its one large part, followed down, until a part
 * holds several statements. Undefined when a part on the way is a definition, an import or a
 * name (the wrapped statements would then be in its scope, or be its text), or nothing wraps.
 */
function wrappedStatements(node: SyntaxNode, plan: ExtractionPlan): SyntaxNode | undefined {
  const rows = (n: SyntaxNode) => n.endPosition.row - n.startPosition.row + 1;
  const least = rows(node) * WRAPPED_SHARE;
  let current = node;
  for (let depth = 0; depth < WRAPPER_MAX_DEPTH; depth++) {
    if (isSymbolNode(current, plan)) return undefined;
    const large = current.namedChildren.filter((child): child is SyntaxNode => child !== null && rows(child) >= least);
    if (large.length !== 1) return current !== node && current.namedChildCount > 1 ? current : undefined;
    current = large[0]!;
  }
  return undefined;
}

function isSymbolNode(node: SyntaxNode, plan: ExtractionPlan): boolean {
  return plan.rules.definitions[node.type] !== undefined || plan.importTypes.has(node.type) || plan.identifierTypes.has(node.type);
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
