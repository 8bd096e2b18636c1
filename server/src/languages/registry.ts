/**
 * The languages the server indexes and completes, and lookups by file and editor language id.
 * Adding a language: a folder beside python/ exporting its CodeLanguage, one line below, and its
 * entry in shared/languages.ts (the editor's view of it). README.md has the checklist.
 */
import { languageOfEditorId as editorLanguageOf, languageOfFileName, type LanguageId } from '../../../shared/languages.js';
import type { CodeLanguage } from './language.js';
import { createParser, type Grammar, type SyntaxParser } from './syntaxTree.js';
import go from './go/go.js';
import javascript from './javascript/javascript.js';
import typescript from './javascript/typescript.js';
import python from './python/python.js';
import rust from './rust/rust.js';

/** Every registered language, in the order file endings are matched. */
export const LANGUAGES: readonly CodeLanguage[] = [python, go, rust, javascript, typescript];

const byId = new Map<LanguageId, CodeLanguage>(LANGUAGES.map((language) => [language.id, language]));

/** A registered language by id. */
export function languageById(id: LanguageId): CodeLanguage | undefined {
  return byId.get(id);
}

/** The language a path's file name says, if one is registered. */
export function languageOfPath(relOrAbsPath: string): CodeLanguage | undefined {
  const id = languageOfFileName(relOrAbsPath);
  return id === undefined ? undefined : byId.get(id);
}

/** The line comment of a file's language; `#` for a file of no registered language. */
export function lineCommentOf(relOrAbsPath: string): string {
  return languageOfPath(relOrAbsPath)?.editing.lineComment ?? '#';
}

/** The language of an editor's `languageId`, if one is registered. */
export function languageOfEditorId(editorId: string): CodeLanguage | undefined {
  const id = editorLanguageOf(editorId);
  return id === undefined ? undefined : byId.get(id);
}

/** Whether a path is a source file of a registered language. */
export function isSourcePath(relOrAbsPath: string): boolean {
  return languageOfPath(relOrAbsPath) !== undefined;
}

/** Folder names no language's project indexes (build output, dependencies, tool state). */
export const SKIPPED_DIRECTORY_NAMES: ReadonlySet<string> = new Set(LANGUAGES.flatMap((language) => language.project.skipDirectories));

/** Project files some language's import resolution reads (go.mod, package.json). */
export const PROJECT_FILE_NAMES: ReadonlySet<string> = new Set(LANGUAGES.flatMap((language) => language.project.projectFiles));

/** A parser for the file at `relPath` (its language's grammar); rejects when no language owns it. */
export function createParserForPath(relPath: string): Promise<SyntaxParser> {
  const language = languageOfPath(relPath);
  if (!language) return Promise.reject(new Error(`no registered language reads ${relPath}`));
  return createParser(language.grammarOf(relPath));
}

/** A parser for every registered grammar, chosen by file name. */
export interface ParserSet {
  /** The parser of the file's language; undefined when no language owns the file. */
  forPath(relOrAbsPath: string): SyntaxParser | undefined;
  dispose(): void;
}

/**
 * Loads every registered language's grammars (in parallel, ~65 ms each, once per process) and
 * makes one parser of each.
 */
export async function createParserSet(): Promise<ParserSet> {
  const grammars = new Map<string, Grammar>();
  for (const language of LANGUAGES) {
    for (const ext of language.extensions) {
      const grammar = language.grammarOf(`file${ext}`);
      grammars.set(`${grammar.package}/${grammar.wasm}`, grammar);
    }
  }
  const parsers = new Map<string, SyntaxParser>();
  await Promise.all([...grammars].map(async ([key, grammar]) => parsers.set(key, await createParser(grammar))));
  return {
    forPath(relOrAbsPath) {
      const grammar = languageOfPath(relOrAbsPath)?.grammarOf(relOrAbsPath);
      return grammar && parsers.get(`${grammar.package}/${grammar.wasm}`);
    },
    dispose() {
      for (const parser of parsers.values()) parser.dispose();
      parsers.clear();
    },
  };
}
