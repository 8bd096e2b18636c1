/**
 * Go: tree-sitter-go, imports as the go command finds packages inside the workspace's modules
 * (importResolver.ts), `//` doc comments, `{` opening blocks, backtick raw strings.
 */
import * as path from 'node:path';
import { EDITOR_LANGUAGES } from '../../../../shared/languages.js';
import { cStyleLexical, opensBraceBlock } from '../braceSyntax.js';
import type { CodeLanguage, EnclosingScope, ImportRecord, SymbolRules } from '../language.js';
import { GO_DEFINITIONS, goDocumentation, goSignature } from './goDeclarations.js';
import { resolveGoImport } from './importResolver.js';
import { IMPORT_DECLARATION_TYPES, importRecords } from './importSpecs.js';

/**
 * The predeclared types: tree-sitter-go parses them as type identifiers, yet no workspace file
 * defines them, and they are in nearly every line. Builtin functions stay references: code
 * written before Go 1.21 often defines its own `min` and `max`.
 */
const PREDECLARED_TYPES: ReadonlySet<string> = new Set([
  'any', 'bool', 'byte', 'comparable', 'complex64', 'complex128', 'error', 'float32', 'float64',
  'int', 'int8', 'int16', 'int32', 'int64', 'rune', 'string', 'uint', 'uint8', 'uint16', 'uint32',
  'uint64', 'uintptr',
]);

/**
 * Go's keywords (never identifier nodes, but every window has them: left out of retrieval's
 * tokens) and its predeclared types (the grammar reads them as type names: no reference).
 */
const KEYWORDS: ReadonlySet<string> = new Set([
  'break', 'case', 'chan', 'const', 'continue', 'default', 'defer', 'else', 'fallthrough', 'for', 'func',
  'go', 'goto', 'if', 'import', 'interface', 'map', 'package', 'range', 'return', 'select', 'struct',
  'switch', 'type', 'var', ...PREDECLARED_TYPES,
]);

/**
 * Go definitions do not nest (a function's local types are not definitions, methods name their
 * owner through the receiver), so a scope, where there is one, is a type: `Type.name`.
 */
function qualify(scope: EnclosingScope | undefined, name: string): string {
  return scope ? `${scope.qualifiedName}.${name}` : name;
}

const symbols: SymbolRules = {
  identifierTypes: ['identifier', 'field_identifier', 'type_identifier', 'package_identifier'],
  keywords: KEYWORDS,
  definitions: GO_DEFINITIONS,
  importTypes: IMPORT_DECLARATION_TYPES,
  importRecords,
  qualify,
  signature: goSignature,
  documentation: goDocumentation,
  // A method is declared in the package of its receiver's type: any file of the same directory.
  mayHoldMembersOf: (typeFile, relPath) => path.posix.dirname(typeFile) === path.posix.dirname(relPath),
};

/** The key of the files directly in the workspace root, whose directory has no name of its own. */
const ROOT_KEY = '/';

/**
 * An import names a directory, and the directory's last element is almost always the import
 * path's. Not for a module's root (module `example.com/m` at the workspace root, or `…/v2`), so
 * every import also waits on root files; and a resolved import on its own directory, which may
 * be a module root or `replace` target named otherwise.
 */
function dependencyKeys(record: ImportRecord): string[] {
  const keys = [record.module.slice(record.module.lastIndexOf('/') + 1), ROOT_KEY];
  if (record.resolvedPath) keys.push(keyOfFile(record.resolvedPath));
  return [...new Set(keys)];
}

/** A Go file's key is its directory's last element: an import names a directory, not a file. */
function keyOfFile(relPath: string): string {
  const dir = path.posix.dirname(relPath);
  return dir === '.' ? ROOT_KEY : dir.slice(dir.lastIndexOf('/') + 1);
}

const go: CodeLanguage = {
  ...EDITOR_LANGUAGES.find((language) => language.id === 'go')!,
  grammarOf: () => ({ package: 'tree-sitter-go', wasm: 'tree-sitter-go.wasm' }),
  symbols,
  imports: { resolve: resolveGoImport, dependencyKeys, keyOfFile },
  editing: {
    lineComment: '//',
    // Backtick strings span lines and know no escapes; `'` is a rune literal.
    lexical: cStyleLexical(['"', "'", '`'], ['`'], ['`']),
    opensBlock: opensBraceBlock,
    closesBlocks: true,
    topLevelStarts: ['func ', 'type ', 'import ', 'package ', 'var ', 'const '],
  },
  project: {
    rootMarkers: ['go.mod', 'go.work'],
    // vendor/ is skipped for every language already.
    skipDirectories: [],
    projectFiles: ['go.mod', 'go.work'],
  },
};

export default go;
