/**
 * Python: tree-sitter-python, imports as `sys.path` would find them (importResolver.ts),
 * docstrings, `:` opening blocks, `#` comments.
 */
import { EDITOR_LANGUAGES } from '../../../../shared/languages.js';
import type { CodeLanguage, DefinitionRule, EnclosingScope, ImportRecord, SymbolRules } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';
import { docstringOf, signatureOf } from './definitionText.js';
import { resolveImport } from './importResolver.js';
import { IMPORT_STATEMENT_TYPES, importRecords } from './importStatements.js';

/** Hard keywords; tree-sitter-python aliases some of them to identifiers in legacy forms. */
const KEYWORDS: ReadonlySet<string> = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue',
  'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
  'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]);

/** Definition ranges start at the first decorator. */
const decorated = (node: SyntaxNode): SyntaxNode => (node.parent?.type === 'decorated_definition' ? node.parent : node);

const DEFINITIONS: Record<string, DefinitionRule> = {
  function_definition: { kind: 'function', outerNode: decorated },
  class_definition: { kind: 'class', outerNode: decorated },
};

/**
 * Qualified names follow Python's `__qualname__`: `Class.method`, `outer.<locals>.inner`, so a
 * nested helper is never mistaken for a method and names match what tracebacks show.
 */
function qualify(scope: EnclosingScope | undefined, name: string): string {
  if (!scope) return name;
  return scope.kind === 'class' ? `${scope.qualifiedName}.${name}` : `${scope.qualifiedName}.<locals>.${name}`;
}

const symbols: SymbolRules = {
  identifierTypes: ['identifier'],
  keywords: KEYWORDS,
  definitions: DEFINITIONS,
  importTypes: [...IMPORT_STATEMENT_TYPES],
  importRecords,
  qualify,
  signature: (node, text) => signatureOf(node, node.childForFieldName('body'), text),
  documentation: (node, _outer, text) => {
    const body = node.childForFieldName('body');
    return body ? docstringOf(body, text) : undefined;
  },
};

/** `a.b.c` -> `c`; `..util` -> `util`; `.` -> ''. */
function lastPart(dotted: string): string {
  return dotted.slice(dotted.lastIndexOf('.') + 1);
}

/**
 * An import can only resolve to a file whose name (without `.py`) is its module's last part or the
 * last part of a name it imports (`from a.b import c` looks for `b.py` and `c.py`, or those
 * packages' `__init__.py`). An `__init__.py` changes which directories are packages, which moves
 * the search bases of every file below it.
 */
function dependencyKeys(record: ImportRecord): string[] {
  return [lastPart(record.module), ...record.names.filter((n) => n.name !== '*').map((n) => lastPart(n.name))];
}

function keyOfFile(relPath: string): string {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  return name === '__init__.py' ? 'everything' : name.replace(/\.py$/, '');
}

const python: CodeLanguage = {
  ...EDITOR_LANGUAGES.find((language) => language.id === 'python')!,
  grammarOf: () => ({ package: 'tree-sitter-python', wasm: 'tree-sitter-python.wasm' }),
  symbols,
  imports: { resolve: (record, from, files) => resolveImport(record, from, (relPath) => files.has(relPath)), dependencyKeys, keyOfFile },
  editing: {
    lineComment: '#',
    lexical: { lineComments: ['#'], quotes: ['"""', "'''", '"', "'"], multiLineQuotes: ['"""', "'''"] },
    opensBlock: (line) => line.trimEnd().endsWith(':'),
    topLevelStarts: ['def ', 'async def ', 'class ', '@', 'import ', 'from '],
    documented: (signature, documentation) => `${signature}\n    """${documentation}"""`,
    memberStub: (signature) => `${signature} ...`,
  },
  project: {
    rootMarkers: ['pyproject.toml', 'setup.py', 'setup.cfg'],
    skipDirectories: ['site-packages', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', 'migrations'],
    projectFiles: [],
  },
};

export default python;
