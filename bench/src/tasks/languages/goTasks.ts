/**
 * Go: `call_expression` whose function is `pkg.F` or a bare `F`. `pkg` is an import's alias, or
 * the package name its files declare (`go-toml/v2` declares `toml`), and resolves through the
 * import's `packageFiles`; a bare `F` is a function or type of the calling file's own package
 * defined in another of its files, which Go needs no import for. `F` may be a type: a
 * conversion `T(x)` is written as a call. Methods on values (`x.M()`) need types and are left out.
 */
import path from 'node:path';
import type { Definition, FileIndex, ImportRecord, IndexView } from '../../../../server/src/indexing/types.js';
import type { TaskSyntax } from './taskSyntax.js';

/** `package name` at the start of a line: the clause, after any comments and build tags. */
const PACKAGE_CLAUSE = /^package\s+([A-Za-z_]\w*)/m;

/** Go's task syntax. */
export const goTasks: TaskSyntax = {
  stringTypes: ['raw_string_literal', 'interpreted_string_literal'],
  docstrings: false,
  calls: { call_expression: 'function' },
  resolveCallee(callee, file, index) {
    if (callee.type === 'identifier') return samePackageDefinition(callee.text, file, index);
    if (callee.type !== 'selector_expression') return undefined;
    const operand = callee.childForFieldName('operand');
    const field = callee.childForFieldName('field');
    if (operand?.type !== 'identifier' || !field) return undefined;
    const files = importedPackageFiles(operand.text, file, index);
    return files ? packageDefinition(field.text, files, index) : undefined;
  },
};

/** The files of the package `name` refers to through an import, if one resolved in the workspace. */
function importedPackageFiles(name: string, file: FileIndex, index: IndexView): ReadonlySet<string> | undefined {
  const record = file.imports.find((r) => r.packageFiles?.length && boundName(r, index) === name);
  return record?.packageFiles ? new Set(record.packageFiles) : undefined;
}

/** The name an import binds: its alias, else the package clause of its files, else its last path element. */
function boundName(record: ImportRecord, index: IndexView): string | undefined {
  if (record.alias === '_' || record.alias === '.') return undefined;
  if (record.alias) return record.alias;
  const first = record.packageFiles?.[0];
  return (first === undefined ? undefined : packageNameOf(index.file(first))) ?? record.module.split('/').pop();
}

/**
 * `name` in another file of the calling file's package: its directory and package clause (an
 * `x_test` package shares the directory, not the names); test files only from tests.
 */
function samePackageDefinition(name: string, file: FileIndex, index: IndexView): Definition | undefined {
  const dir = path.posix.dirname(file.relPath);
  const fromTest = file.relPath.endsWith('_test.go');
  const packageName = packageNameOf(file);
  return index.definitionsNamed(name).find((d) => d.relPath !== file.relPath && d.relPath.endsWith('.go')
    && path.posix.dirname(d.relPath) === dir && (fromTest || !d.relPath.endsWith('_test.go')) && isCallable(d, name)
    && packageNameOf(index.file(d.relPath)) === packageName);
}

function packageNameOf(file: FileIndex | undefined): string | undefined {
  return file ? PACKAGE_CLAUSE.exec(file.text)?.[1] : undefined;
}

/** A function or type `name` defined at the top level of one of `files`. */
function packageDefinition(name: string, files: ReadonlySet<string>, index: IndexView): Definition | undefined {
  return index.definitionsNamed(name).find((d) => files.has(d.relPath) && isCallable(d, name));
}

function isCallable(definition: Definition, name: string): boolean {
  return definition.qualifiedName === name && (definition.kind === 'function' || definition.kind === 'class');
}
