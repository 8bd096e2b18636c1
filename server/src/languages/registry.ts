/**
 * The languages the server indexes and completes, and lookups by file and editor language id.
 * Adding a language: a folder beside python/ exporting its CodeLanguage, one line below, and its
 * entry in shared/languages.ts (the editor's view of it). README.md has the checklist.
 */
import { languageOfEditorId as editorLanguageOf, languageOfFileName, type LanguageId } from '../../../shared/languages.js';
import type { CodeLanguage } from './language.js';
import { createParser, initSyntaxRuntime, type Grammar, type SyntaxParser } from './syntaxTree.js';
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

/** Parsers chosen by file name, one per grammar, each loaded when a file of its language comes. */
export interface ParserSet {
  /** The parser of the file's language; undefined when no language owns the file or its grammar is not loaded. */
  forPath(relOrAbsPath: string): SyntaxParser | undefined;
  /**
   * Loads the grammars of these files' languages not loaded yet (in parallel, ~65 ms and 1–4 MB
   * each, once per process). Rejects when one cannot load; the others stay usable.
   */
  load(relOrAbsPaths: Iterable<string>): Promise<void>;
  dispose(): void;
}

/** A file name of every registered extension: loading them loads every grammar. */
function everyExtension(): string[] {
  return LANGUAGES.flatMap((language) => language.extensions.map((ext) => `file${ext}`));
}

function grammarKey(grammar: Grammar): string {
  return `${grammar.package}/${grammar.wasm}`;
}

/**
 * A parser set with the grammars of `relOrAbsPaths` loaded, or of every registered language when
 * none are given. A workspace loads only the grammars its files need: a Python project never
 * holds the TypeScript grammar's 1.4 MB of WASM and what parsing with it grows.
 */
export async function createParserSet(relOrAbsPaths?: Iterable<string>): Promise<ParserSet> {
  const parsers = new Map<string, Promise<SyntaxParser>>();
  const loaded = new Map<string, SyntaxParser>();
  let disposed = false;
  const loadGrammar = (key: string, grammar: Grammar): Promise<SyntaxParser> => {
    let parser = parsers.get(key);
    if (!parser) {
      parser = createParser(grammar).then((made) => {
        if (disposed) made.dispose();
        else loaded.set(key, made);
        return made;
      });
      // A grammar that failed is tried again by the next load that needs it.
      parser.catch(() => parsers.delete(key));
      parsers.set(key, parser);
    }
    return parser;
  };
  const set: ParserSet = {
    forPath(relOrAbsPath) {
      const grammar = languageOfPath(relOrAbsPath)?.grammarOf(relOrAbsPath);
      return grammar && loaded.get(grammarKey(grammar));
    },
    async load(paths) {
      const needed = new Map<string, Grammar>();
      for (const file of paths) {
        const grammar = languageOfPath(file)?.grammarOf(file);
        if (grammar && !loaded.has(grammarKey(grammar))) needed.set(grammarKey(grammar), grammar);
      }
      await Promise.all([...needed].map(([key, grammar]) => loadGrammar(key, grammar)));
    },
    dispose() {
      disposed = true;
      for (const parser of loaded.values()) parser.dispose();
      loaded.clear();
      parsers.clear();
    },
  };
  // A broken install fails here, at start, whatever grammars the workspace turns out to need.
  await initSyntaxRuntime();
  await set.load(relOrAbsPaths ?? everyExtension());
  return set;
}
