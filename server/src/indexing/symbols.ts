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
 * A unit's symbols come from unitExtraction.ts; an open document re-extracts only the
 * statements whose text changed (statementCache.ts). This module puts the units together.
 */
import type { CodeLanguage } from '../languages/language.js';
import type { Tree } from '../languages/syntaxTree.js';
import { statementUnits, type StatementCache } from './statementCache.js';
import { deadlineIn, extractUnit, planFor, type DefinitionSite, type UnitSymbols } from './unitExtraction.js';
import type { ImportRecord } from './types.js';

export { createStatementCache, type StatementCache } from './statementCache.js';
export { ExtractionTimeout, type DefinitionSite, type UnitSymbols } from './unitExtraction.js';

/**
 * The longest one file's symbols may take to read, and so the most a file of a shape no content
 * rule foresaw may hold the server's one thread: real code reads at 0.04–0.15 s per MB on the Zen 5
 * EPYC (the largest stdlib and bench files, first read), so a 1 MB file has a tenfold margin even
 * on a machine three times slower.
 */
export const EXTRACTION_BUDGET_MS = 3_000;

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

/**
 * Extract definitions, imports and references. With `cache` (kept per open document), unchanged
 * top-level statements are reused and the cache is refilled with the current statements. Throws
 * ExtractionTimeout past `budgetMs` (the cache then stays as it was).
 */
export function extractSymbols(
  tree: Tree, text: string, relPath: string, language: CodeLanguage, cache?: StatementCache, budgetMs = EXTRACTION_BUDGET_MS,
): SymbolExtraction {
  const root = tree.rootNode;
  const hasSyntaxErrors = root.hasError;
  const plan = planFor(language);
  const deadline = deadlineIn(budgetMs);
  const units = cache ? statementUnits(tree, text, relPath, plan, cache, deadline) : [extractUnit(root, text, relPath, plan, deadline)];
  return { ...finishUnits(units), hasSyntaxErrors };
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
