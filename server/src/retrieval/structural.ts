/**
 * Rivet-style structural candidates (Rivet §3.3, Utility Linking): definitions of names used
 * around the cursor, definitions of names the current file imports, and usage sites of the
 * function that encloses the cursor. Each list is ranked; fusion happens in retriever.ts.
 * Plus the import outline: the signatures of everything the file imports by name from the
 * workspace, in one compact candidate (Rivet §3.4: signatures before dropping).
 */
import type { Chunk, Definition, FileIndex, IndexView } from '../indexing/types.js';
import type { EditingRules } from '../languages/language.js';
import { languageOfPath, lineCommentOf } from '../languages/registry.js';
import { identifierTokens, keywordsOf } from './tokens.js';
import type { Candidate, CandidateSource, RetrievalQuery } from './types.js';

/** Definitions per name: more are usually overloads in unrelated modules, i.e. noise. */
const MAX_DEFINITIONS_PER_NAME = 3;
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
  const chosen = mostUsedFirst(importedDefinitions(view, file), file, outlineComment(query.relPath));
  if (chosen.length === 0) return undefined;
  const comment = outlineComment(query.relPath);
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
 * resolved module; and, where an import names a package of files (Go), the package's top-level
 * definitions the file uses (`store.Open` references `Open`).
 */
function* importBindings(view: IndexView, file: FileIndex): Generator<ImportedDefinition> {
  for (const record of file.imports) {
    for (const relPath of record.packageFiles ?? []) {
      for (const definition of view.file(relPath)?.definitions ?? []) {
        if (definition.qualifiedName === definition.name && file.references.has(definition.name)) yield { local: definition.name, definition };
      }
    }
    if (!record.resolvedPath) continue;
    for (const { name, alias } of record.names) {
      const definition = definitionImported(view, record.resolvedPath, name);
      if (definition) yield { local: alias ?? name, definition };
    }
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

/** The top-level definition `from <module at relPath> import name` binds, when the index has it. */
function definitionImported(view: IndexView, relPath: string, name: string): Definition | undefined {
  // A method's qualified name is `Class.name`, so this finds only top-level functions and classes.
  return view.definitionsNamed(name).find((d) => d.relPath === relPath && d.qualifiedName === name);
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
  const editing = languageOfPath(definition.relPath)?.editing;
  const signature = definition.docstring && editing ? documented(editing, definition.signature, definition.docstring) : definition.signature;
  const text = view.chunkText(chunk);
  const shown = definition.kind === 'class' && editing ? withMethodSignatures(text, definition, file.definitions, editing) : text;
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
 * class's interface. Nested classes' methods are left out.
 */
function withMethodSignatures(text: string, definition: Definition, definitions: readonly Definition[], editing: EditingRules): string {
  const prefix = `${definition.qualifiedName}.`;
  const methods = definitions.filter((d) => d.kind === 'method' && d.qualifiedName.startsWith(prefix) && !d.qualifiedName.slice(prefix.length).includes('.'));
  if (methods.length === 0) return text;
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const stub = editing.memberStub ?? ((signature: string) => signature);
  return body + methods.map((m) => `    ${stub(m.signature)}\n`).join('');
}

/** The outline is written as the document's code: its language's line comment (`#` when none is known). */
function outlineComment(relPath: string | undefined): string {
  return relPath === undefined ? '#' : lineCommentOf(relPath);
}
