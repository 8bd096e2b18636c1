/**
 * Rivet-style structural candidates (Rivet §3.3, Utility Linking): definitions of names used
 * around the cursor, definitions of names the current file imports, and usage sites of the
 * function that encloses the cursor. Each list is ranked; fusion happens in retriever.ts.
 * Plus the import outline: the signatures of everything the file imports by name from the
 * workspace, in one compact candidate (Rivet §3.4: signatures before dropping).
 */
import type { Chunk, Definition, FileIndex, IndexView } from '../indexing/types.js';
import type { EditingRules, SymbolRules } from '../languages/language.js';
import { languageOfPath, lineCommentOf } from '../languages/registry.js';
import { identifierTokens, keywordsOf } from './tokens.js';
import type { Candidate, CandidateSource, RetrievalQuery } from './types.js';

/** Definitions per name: more are usually overloads in unrelated modules, i.e. noise. */
const MAX_DEFINITIONS_PER_NAME = 3;
/** Methods of a class listed from files other than its own (Rust's `impl` blocks, Go's receivers). */
const MAX_MEMBERS_ELSEWHERE = 16;
/** Lines of context shown around a usage site. */
const USAGE_CONTEXT_BEFORE = 3;
const USAGE_CONTEXT_AFTER = 4;
/** Usage sites listed for the enclosing function. */
const MAX_USAGES = 6;
/** Lines after the cursor whose names also count as "around the cursor". */
const SUFFIX_LINES_FOR_NAMES = 3;
/** The import outline's size: at most this many signatures and characters (~150 tokens). */
const MAX_OUTLINE_ENTRIES = 12;
const MAX_OUTLINE_CHARS = 480;

/** A ranked structural candidate before fusion. */
export interface RankedCandidate extends Omit<Candidate, 'score'> {
  source: CandidateSource;
}

/** Names used around the cursor, nearest to the cursor first. */
export function namesAroundCursor(query: RetrievalQuery, windowLines: number): string[] {
  const before = query.prefixLines.slice(-windowLines).join('\n');
  const after = query.suffixText.split('\n', SUFFIX_LINES_FOR_NAMES).join('\n');
  const keywords = query.keywords ?? keywordsOf(query.relPath);
  const ordered = [...identifierTokens(before, keywords).reverse(), ...identifierTokens(after, keywords)];
  return [...new Set(ordered)];
}

/** Definitions of names used around the cursor, preferring files the document imports. */
export function definitionCandidates(
  view: IndexView, query: RetrievalQuery, names: string[], isExcluded: (c: Chunk) => boolean,
): RankedCandidate[] {
  const imported = new Set((query.file?.imports ?? []).flatMap((i) => (i.resolvedPath ? [i.resolvedPath] : [])));
  const result: RankedCandidate[] = [];
  for (const name of names) {
    const definitions = [...view.definitionsNamed(name)]
      .sort((a, b) => Number(imported.has(b.relPath)) - Number(imported.has(a.relPath)))
      .slice(0, MAX_DEFINITIONS_PER_NAME);
    for (const definition of definitions) {
      const candidate = definitionCandidate(view, definition, 'definition');
      if (candidate && !isExcluded(candidate.chunk)) result.push(candidate);
    }
  }
  return result;
}

/** Definitions the document imports by name (`from m import a`), in import order. */
export function importCandidates(
  view: IndexView, query: RetrievalQuery, isExcluded: (c: Chunk) => boolean,
): RankedCandidate[] {
  const result: RankedCandidate[] = [];
  if (!query.file) return result;
  for (const { definition } of importBindings(view, query.file)) {
    const candidate = definitionCandidate(view, definition, 'import');
    if (candidate && !isExcluded(candidate.chunk)) result.push(candidate);
  }
  return result;
}

/**
 * The import outline: one candidate listing the signatures of the functions and classes the
 * document imports by name from workspace files, most-used names first (a call at the cursor
 * is most often to something the file already calls), grouped under their file's path.
 * An API call's callee is usually one of them, but with a dozen imports their whole
 * definitions do not fit the chunk budget and rank below the lexical windows: in the bench's
 * API tasks the callee's definition reached the prompt in 39 % of tasks without the outline.
 */
export function importOutline(view: IndexView, query: RetrievalQuery): RankedCandidate | undefined {
  const file = query.file;
  if (!file || !query.relPath) return undefined;
  // The outline is written as the document's code, in its language's comments.
  const comment = lineCommentOf(query.relPath);
  const chosen = mostUsedFirst(importedDefinitions(view, file), file, comment);
  if (chosen.length === 0) return undefined;
  const lines: string[] = [];
  for (const relPath of new Set(chosen.map((e) => e.definition.relPath))) {
    lines.push(`${comment} ${relPath}`, ...chosen.filter((e) => e.definition.relPath === relPath).map((e) => outlineLine(e, comment)));
  }
  const importLines = file.imports.map((i) => i.line);
  const startLine = Math.min(...importLines);
  const endLine = Math.max(...importLines) + 1;
  const chunk: Chunk = { id: `${query.relPath}:outline:${startLine}-${endLine}`, relPath: query.relPath, kind: 'outline', startLine, endLine };
  return {
    chunk, text: `${lines.join('\n')}\n`, sources: ['import'], source: 'import',
    lists: chosen.map((e) => ({ relPath: e.definition.relPath, startLine: e.definition.startLine })),
  };
}

interface ImportedDefinition {
  /** The name the document uses (the alias when there is one). */
  local: string;
  definition: Definition;
}

/** Top-level functions and classes imported by name from workspace files, in import order, once each. */
function importedDefinitions(view: IndexView, file: FileIndex): ImportedDefinition[] {
  const found: ImportedDefinition[] = [];
  const seen = new Set<string>();
  for (const binding of importBindings(view, file)) {
    const key = `${binding.definition.relPath}:${binding.definition.startLine}`;
    if (!seen.has(key)) found.push(binding);
    seen.add(key);
  }
  return found;
}

/**
 * The workspace definitions a file's imports bind, in import order: each name imported from a
 * resolved module; and, where an import brings a whole module (a package of files in Go,
 * `import m` and `from pkg import module` in Python, `use crate::size_hint;` and `use super::*;`
 * in Rust, `export * from`), the module's top-level definitions the file uses
 * (`store.Open` and `size_hint::add` reference `Open` and `add`).
 */
function* importBindings(view: IndexView, file: FileIndex): Generator<ImportedDefinition> {
  for (const record of file.imports) {
    for (const relPath of record.packageFiles ?? []) yield* definitionsUsed(view, relPath, file);
    if (!record.resolvedPath) continue;
    if (record.names.length === 0 && !record.packageFiles) yield* definitionsUsed(view, record.resolvedPath, file);
    for (const { name, alias, resolvedPath } of record.names) {
      if (name === '*' || resolvedPath) {
        yield* definitionsUsed(view, resolvedPath ?? record.resolvedPath, file);
        continue;
      }
      const definition = definitionImported(view, record.resolvedPath, name);
      if (definition) yield { local: alias ?? name, definition };
    }
  }
}

/** The top-level definitions of the module at `relPath` whose names `file` uses. */
function* definitionsUsed(view: IndexView, relPath: string, file: FileIndex): Generator<ImportedDefinition> {
  for (const definition of view.file(relPath)?.definitions ?? []) {
    if (definition.qualifiedName === definition.name && file.references.has(definition.name)) yield { local: definition.name, definition };
  }
}

/**
 * The entries that fit the outline, most-used in the document first (ties in import order).
 * Each entry is charged its line plus a file header, an upper bound on what it adds.
 */
function mostUsedFirst(entries: ImportedDefinition[], file: FileIndex, comment: string): ImportedDefinition[] {
  const uses = (entry: ImportedDefinition) => file.references.get(entry.local)?.length ?? 0;
  const ranked = entries.map((entry, order) => ({ entry, order, uses: uses(entry) }))
    .sort((a, b) => b.uses - a.uses || a.order - b.order);
  const chosen: ImportedDefinition[] = [];
  let chars = 0;
  for (const { entry } of ranked) {
    const cost = outlineLine(entry, comment).length + entry.definition.relPath.length + 3;
    if (chosen.length === MAX_OUTLINE_ENTRIES || chars + cost > MAX_OUTLINE_CHARS) break;
    chosen.push(entry);
    chars += cost;
  }
  return chosen;
}

/** How many re-exports deep an imported name is followed (`lib.rs` → `re_unicode.rs` is one). */
const MAX_REEXPORT_HOPS = 3;

/**
 * The top-level definition `from <module at relPath> import name` binds, when the index has it.
 * A module that only passes the name on (`pub use config::Config;` in `lib.rs`,
 * `from .config import Config` in `__init__.py`, `export { Config } from './config'`) is followed
 * to the module that defines it: crates and packages name their API at the root, and files
 * inside them import it from there.
 */
function definitionImported(view: IndexView, relPath: string, name: string, hops = 0): Definition | undefined {
  // A method's qualified name is `Class.name`, so this finds only top-level functions and classes.
  const defined = view.definitionsNamed(name).find((d) => d.relPath === relPath && d.qualifiedName === name);
  if (defined || hops === MAX_REEXPORT_HOPS) return defined;
  for (const record of view.file(relPath)?.imports ?? []) {
    if (!record.resolvedPath || record.resolvedPath === relPath) continue;
    const passed = record.names.find((n) => (n.alias ?? n.name) === name) ?? record.names.find((n) => n.name === '*');
    if (!passed) continue;
    const found = definitionImported(view, record.resolvedPath, passed.name === '*' ? name : passed.name, hops + 1);
    if (found) return found;
  }
  return undefined;
}

function outlineLine({ local, definition }: ImportedDefinition, comment: string): string {
  return local === definition.name ? definition.signature : `${definition.signature}  ${comment} as ${local}`;
}

/** Call sites of the function enclosing the cursor, in other places of the workspace. */
export function usageCandidates(
  view: IndexView, query: RetrievalQuery, isExcluded: (c: Chunk) => boolean,
): RankedCandidate[] {
  const enclosing = enclosingDefinition(query.file, query.cursorLine);
  if (!enclosing) return [];
  const result: RankedCandidate[] = [];
  for (const site of view.referencesTo(enclosing.name)) {
    const file = view.file(site.relPath);
    if (!file) continue;
    const startLine = Math.max(0, site.line - USAGE_CONTEXT_BEFORE);
    const endLine = Math.min(file.lines.length, site.line + USAGE_CONTEXT_AFTER);
    const chunk: Chunk = { id: `${site.relPath}:window:${startLine}-${endLine}`, relPath: site.relPath, kind: 'window', startLine, endLine };
    if (isExcluded(chunk)) continue;
    result.push({ chunk, text: view.chunkText(chunk), sources: ['usage'], source: 'usage' });
    if (result.length >= MAX_USAGES) break;
  }
  return result;
}

/** The innermost function or class whose lines contain `line`. */
export function enclosingDefinition(file: FileIndex | undefined, line: number): Definition | undefined {
  let best: Definition | undefined;
  for (const definition of file?.definitions ?? []) {
    if (definition.startLine > line || line >= definition.endLine) continue;
    if (!best || definition.startLine >= best.startLine) best = definition;
  }
  return best;
}

function definitionCandidate(view: IndexView, definition: Definition, source: CandidateSource): RankedCandidate | undefined {
  const file = view.file(definition.relPath);
  if (!file) return undefined;
  const chunk = file.structural.find(
    (c) => c.symbol === definition.qualifiedName && c.kind === definition.kind && (c.part?.index ?? 1) === 1,
  );
  if (!chunk) return undefined;
  const language = languageOfPath(definition.relPath);
  const editing = language?.editing;
  const signature = definition.docstring && editing ? documented(editing, definition.signature, definition.docstring) : definition.signature;
  const text = view.chunkText(chunk);
  const shown = definition.kind === 'class' && language
    ? withMethodSignatures(text, membersOf(view, definition, file.definitions, language.symbols), language.editing)
    : text;
  return { chunk, text: shown, sources: [source], source, signature };
}

/** A signature with its documentation, as the language writes one (Rivet §3.4: signatures before dropping). */
function documented(editing: EditingRules, signature: string, documentation: string): string {
  return editing.documented ? editing.documented(signature, documentation) : `${editing.lineComment} ${documentation}\n${signature}`;
}

/**
 * A class chunk ends before its first method (indexing/chunker.ts), so alone it says nothing of
 * what an instance offers: `shape.` after it has only the fields to go on. The class's own
 * methods follow as signatures (Rivet §3.4: reduce to signatures), so the candidate is the
 * class's interface.
 */
function withMethodSignatures(text: string, methods: readonly Definition[], editing: EditingRules): string {
  if (methods.length === 0) return text;
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const stub = editing.memberStub ?? ((signature: string) => signature);
  return body + methods.map((m) => `    ${stub(m.signature)}\n`).join('');
}

/**
 * A class's methods: those in its file, then, where the language writes methods outside the
 * type's body (Rust's `impl`, Go's receivers), those in the other files that name the type
 * (`Error::new` is called on a struct whose `impl` is two files away), at most
 * MAX_MEMBERS_ELSEWHERE of them. Nested classes' methods are left out.
 */
function membersOf(view: IndexView, definition: Definition, ownFile: readonly Definition[], symbols: SymbolRules): Definition[] {
  const prefix = `${definition.qualifiedName}.`;
  const isMember = (d: Definition) => d.kind === 'method' && d.qualifiedName.startsWith(prefix) && !d.qualifiedName.slice(prefix.length).includes('.');
  const members = ownFile.filter(isMember);
  const mayHold = symbols.mayHoldMembersOf;
  if (!mayHold) return members;
  const elsewhere: Definition[] = [];
  // Files, not their lines: a crate's main type is named on thousands of lines.
  for (const relPath of view.filesReferencing(definition.name)) {
    if (relPath === definition.relPath || !mayHold(definition.relPath, relPath)) continue;
    elsewhere.push(...(view.file(relPath)?.definitions ?? []).filter(isMember));
    if (elsewhere.length >= MAX_MEMBERS_ELSEWHERE) break;
  }
  return [...members, ...elsewhere.slice(0, MAX_MEMBERS_ELSEWHERE)];
}
