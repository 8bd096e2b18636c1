/**
 * Rust: tree-sitter-rust, `use` and `mod x;` resolved through the module tree of file names
 * (moduleResolver.ts), `///` doc comments, `{` opening blocks, C comments, Cargo projects.
 */
import { EDITOR_LANGUAGES } from '../../../../shared/languages.js';
import { cStyleLexical, opensBraceBlock } from '../braceSyntax.js';
import type { CodeLanguage, ImportRecord, SymbolRules } from '../language.js';
import { DEFINITIONS, documentation, qualify, signature } from './definitions.js';
import { baseName, dirOf, isCrateRootFile } from './moduleFiles.js';
import { resolveModulePath } from './moduleResolver.js';
import { IMPORT_NODE_TYPES, importRecords } from './useDeclarations.js';

/**
 * Rust's strict keywords. `Self` is the only one the grammar reads as a name (an identifier or a
 * type identifier; `self`, `super` and `crate` have node types of their own); the others are
 * left out of retrieval's tokens, where every window would share them.
 */
const KEYWORDS: ReadonlySet<string> = new Set([
  'Self', 'as', 'async', 'await', 'break', 'const', 'continue', 'crate', 'dyn', 'else', 'enum', 'extern',
  'false', 'fn', 'for', 'if', 'impl', 'in', 'let', 'loop', 'match', 'mod', 'move', 'mut', 'pub', 'ref',
  'return', 'self', 'static', 'struct', 'super', 'trait', 'true', 'type', 'unsafe', 'use', 'where', 'while',
]);

/** Path segments no module file can be named after (`crate.rs` cannot be a module). */
const PATH_KEYWORDS: ReadonlySet<string> = new Set(['', 'crate', 'self', 'super']);

const symbols: SymbolRules = {
  identifierTypes: ['identifier', 'field_identifier', 'type_identifier'],
  keywords: KEYWORDS,
  definitions: DEFINITIONS,
  importTypes: IMPORT_NODE_TYPES,
  importRecords,
  qualify,
  signature,
  documentation,
  // `impl Type { … }` may be written in any module of the crate.
  mayHoldMembersOf: () => true,
};

/**
 * A record can resolve to the file of any segment of its path or any name it imports (each
 * module file's key is its module name), so all of them are its keys. `super::` is the gap: the
 * parent module's name is not in the record (README.md).
 */
function dependencyKeys(record: ImportRecord): string[] {
  const segments = record.module.split('::').filter((segment) => !PATH_KEYWORDS.has(segment));
  return [...segments, ...record.names.filter((n) => n.name !== '*').map((n) => n.name)];
}

/**
 * A module file's key is its module name: `net` for `net.rs` and `net/mod.rs`. A crate root
 * (`lib.rs`, `main.rs`, `tests/it.rs`, …) moves every import below it when it comes or goes
 * (it decides which crate a file is in), and imports reach it as `crate`, `super` or a crate
 * name rather than by its file name: everything.
 */
function keyOfFile(relPath: string): string {
  if (isCrateRootFile(relPath)) return 'everything';
  const name = baseName(relPath);
  if (name === 'mod.rs') return baseName(dirOf(relPath)) || 'mod';
  return name.replace(/\.rs$/, '');
}

const rust: CodeLanguage = {
  ...EDITOR_LANGUAGES.find((language) => language.id === 'rust')!,
  grammarOf: () => ({ package: 'tree-sitter-rust', wasm: 'tree-sitter-rust.wasm' }),
  symbols,
  imports: { resolve: resolveModulePath, dependencyKeys, keyOfFile },
  editing: {
    lineComment: '//',
    // `'` starts both chars and lifetimes (`&'a str`), so it is no quote; raw strings (`r#"…"#`) read as plain ones.
    lexical: cStyleLexical(['"'], ['"']),
    opensBlock: opensBraceBlock,
    closesBlocks: true,
    topLevelStarts: [
      'fn ', 'pub ', 'pub(', 'impl', 'struct ', 'enum ', 'trait ', 'mod ', 'use ', '#[', '#![',
      'async fn ', 'unsafe ', 'const ', 'static ', 'type ', 'extern ', 'macro_rules!',
    ],
  },
  project: {
    rootMarkers: ['Cargo.toml'],
    skipDirectories: ['target'],
    projectFiles: ['Cargo.toml'],
  },
};

export default rust;
