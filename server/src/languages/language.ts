/**
 * What the pipeline needs to know of one programming language: how its files are parsed into
 * definitions, imports and references; how its imports name other files; how its code is
 * written (comments, strings, blocks) for the completion's stop and bracket rules; and what its
 * projects look like on disk. One object per language, in its own folder; nothing else in the
 * server names a language.
 */
import type { EditorLanguage } from '../../../shared/languages.js';
import type { Grammar, SyntaxNode } from './syntaxTree.js';

export type { LanguageId } from '../../../shared/languages.js';

/** Definitions as retrieval sees them: types of every language (struct, trait, interface) are classes. */
export type DefinitionKind = 'function' | 'method' | 'class';

/** One import statement (or one module of it): `from x import y`, `import {a} from './x'`, `use crate::a`. */
export interface ImportRecord {
  /** The module as written: `..util`, `./store`, `example.com/m/store`, `crate::a::b`. */
  module: string;
  /**
   * Imported names with their local alias; empty when the statement imports the module itself.
   * `*` for star imports. `resolvedPath` is set when the name is itself a module file.
   */
  names: { name: string; alias?: string; resolvedPath?: string }[];
  /** The name the module is bound to (`import m as alias`, `import * as ns`, Go's package alias). */
  alias?: string;
  line: number;
  /** Workspace-relative path of the module's file when it resolves inside the workspace. */
  resolvedPath?: string;
  /** All files of the package the module names, where an import names a directory (Go). */
  packageFiles?: string[];
}

/** A node type that starts a definition, and how to read it. */
export interface DefinitionRule {
  /**
   * `function` is recorded as a method when its scope is a class; `scope` is not a definition but
   * names what it holds (Rust's `impl Type { … }` makes its functions `Type.f` methods).
   */
  kind: 'function' | 'class' | 'scope';
  /** Whether this node is a definition at all (JS `const f = () => …`, not `const x = 1`). Default: yes. */
  accepts?(node: SyntaxNode, text: string): boolean;
  /** The node holding the name; default: the `name` field. */
  nameNode?(node: SyntaxNode): SyntaxNode | null;
  /** The type a function belongs to when that is written outside any class body (Go's receiver). */
  ownerName?(node: SyntaxNode, text: string): string | undefined;
  /** The node whose lines the definition covers (decorators, `export`); default: the node itself. */
  outerNode?(node: SyntaxNode, text: string): SyntaxNode;
}

/** The scope a definition is written in. */
export interface EnclosingScope {
  qualifiedName: string;
  kind: 'class' | 'function';
}

/** How a file's symbols are read from its tree. */
export interface SymbolRules {
  /** Node types whose text is a name use (a reference), unless it is a definition's own name. */
  identifierTypes: readonly string[];
  /**
   * The language's reserved words: never references (some grammars parse a few as identifiers),
   * and left out of lexical retrieval's tokens, where every window would share them.
   */
  keywords: ReadonlySet<string>;
  /** Definition rules by node type. */
  definitions: Readonly<Record<string, DefinitionRule>>;
  /** Node types that import (read at the top level only). */
  importTypes: readonly string[];
  /** The records of one import node. */
  importRecords(node: SyntaxNode, text: string): ImportRecord[];
  /** The qualified name of `name` defined in `scope` (Python: `Class.method`, `outer.<locals>.inner`). */
  qualify(scope: EnclosingScope | undefined, name: string): string;
  /** The definition's header as an outline shows it: comments dropped, whitespace collapsed. */
  signature(node: SyntaxNode, text: string): string;
  /** The first line of its documentation (docstring, doc comment), if any. */
  documentation(node: SyntaxNode, outer: SyntaxNode, text: string): string | undefined;
  /**
   * Where else a type's methods may be written, when not only in its own body: Rust's `impl`
   * blocks anywhere in the crate, Go's methods in any file of the package. True when the file
   * at `relPath` may hold methods of a type defined in `typeFile`.
   */
  mayHoldMembersOf?(typeFile: string, relPath: string): boolean;
}

/** The file importing, as import resolution sees it. */
export interface ImportingFile {
  relPath: string;
  absPath: string;
}

/** Where an import points. */
export interface ImportResolution {
  resolvedPath?: string;
  /** Parallel to `record.names`: the module file a name is, when it is one. */
  nameTargets: (string | undefined)[];
  packageFiles?: string[];
}

/** The indexed files, as import resolution may query them (no I/O but `projectFile`). */
export interface WorkspaceFiles {
  has(relPath: string): boolean;
  /** Indexed files directly in a directory (relPath, '' for the root), sorted. */
  inDirectory(dir: string): readonly string[];
  /**
   * A project file (`go.mod`, `package.json`, `tsconfig.json`) at `relPath` in the importing
   * file's root, read from disk and cached until it changes; undefined when absent.
   */
  projectFile(from: ImportingFile, relPath: string): string | undefined;
}

/** How imports name other files of the workspace. */
export interface ImportRules {
  resolve(record: ImportRecord, from: ImportingFile, files: WorkspaceFiles): ImportResolution;
  /**
   * Keys of the files an import could resolve to: when a file with such a key comes or goes, the
   * import is resolved again (and only then: resolving everything took 45 s in a file storm).
   */
  dependencyKeys(record: ImportRecord): string[];
  /** The key of a file, or `everything` when its coming or going can move any import (`__init__.py`). */
  keyOfFile(relPath: string): string | 'everything';
}

/** Strings and comments, as far as brackets and block openers care. */
export interface LexicalRules {
  lineComments: readonly string[];
  blockComment?: { open: string; close: string };
  /** String delimiters, longest first; those in `multiLine` may span lines. */
  quotes: readonly string[];
  multiLineQuotes: readonly string[];
  /** Whether a backslash escapes the next character inside these strings (not in Go's `raw`). */
  rawQuotes?: readonly string[];
}

/** How code is written, for the completion's rules (multi-line, brackets, comments in prompts). */
export interface EditingRules {
  /** The line comment written before candidate text that must read as comments (`plain-fim`). */
  lineComment: string;
  lexical: LexicalRules;
  /** Whether a line (trimmed at its end) opens a block a multi-line completion may fill. */
  opensBlock(line: string): boolean;
  /**
   * Blocks end with a closer (`}`) the editor has already written below the cursor: a block
   * completion stops before its first line back at the opener's indentation, which would write
   * the closer again. Python's blocks end by indentation alone.
   */
  closesBlocks?: boolean;
  /** Line starts that are always at the top level (`def `, `func `): the bracket scan starts there. */
  topLevelStarts: readonly string[];
  /**
   * A definition reduced to its signature and documentation (a candidate that did not fit whole):
   * Python puts the docstring under the header; default: the documentation as a line comment above.
   */
  documented?(signature: string, documentation: string): string;
  /** A method listed under its class, body left out (Python's `def f(self): ...`); default: the signature. */
  memberStub?(signature: string): string;
}

/** What the language's projects look like on disk. */
export interface ProjectRules {
  /** Files or folders whose presence marks a project root (the CLI's default workspace). */
  rootMarkers: readonly string[];
  /** Folder names never indexed (build output, dependencies). */
  skipDirectories: readonly string[];
  /** Project files import resolution reads: watched, and a change resolves imports again. */
  projectFiles: readonly string[];
}

/** One language of the registry. */
export interface CodeLanguage extends EditorLanguage {
  /** The grammar of a file (TypeScript's `.tsx` files have their own). */
  grammarOf(relPath: string): Grammar;
  symbols: SymbolRules;
  imports: ImportRules;
  editing: EditingRules;
  project: ProjectRules;
}
