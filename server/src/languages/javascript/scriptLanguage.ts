/**
 * What JavaScript and TypeScript share: one set of symbol, import, editing and project rules.
 * javascript.ts and typescript.ts differ only in grammars, root markers and top-level line starts.
 */
import { EDITOR_LANGUAGES } from '../../../../shared/languages.js';
import { cStyleLexical, opensBraceBlock } from '../braceSyntax.js';
import type { CodeLanguage, EditingRules, ProjectRules, SymbolRules } from '../language.js';
import type { Grammar } from '../syntaxTree.js';
import { DEFINITIONS, documentation, qualify, signature } from './definitions.js';
import { resolveImport } from './importResolver.js';
import { IMPORT_TYPES, importRecords } from './importStatements.js';
import { dependencyKeys, keyOfFile } from './moduleFiles.js';

/**
 * Reserved words: never a binding's name, so as a name node they are `import { default as x }`,
 * error recovery, or a property (`promise.catch`, `map.delete`) that is almost always a builtin's.
 */
const KEYWORDS: ReadonlySet<string> = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
  'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new',
  'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield',
]);

const symbols: SymbolRules = {
  // Every name use: variables, `obj.member`, TypeScript types, `{ short }` objects and patterns.
  identifierTypes: ['identifier', 'property_identifier', 'type_identifier', 'shorthand_property_identifier', 'shorthand_property_identifier_pattern'],
  keywords: KEYWORDS,
  definitions: DEFINITIONS,
  importTypes: IMPORT_TYPES,
  importRecords,
  qualify,
  signature,
  documentation,
};

const TOP_LEVEL_STARTS = ['function ', 'async function ', 'class ', 'export ', 'import ', 'const '];

function editing(extraTopLevelStarts: readonly string[]): EditingRules {
  return {
    lineComment: '//',
    // Template literals span lines; regex literals are not modelled (a `/[{]/` can fool the bracket count).
    lexical: cStyleLexical(['`', '"', "'"], ['`']),
    opensBlock: opensBraceBlock,
    closesBlocks: true,
    topLevelStarts: [...TOP_LEVEL_STARTS, ...extraTopLevelStarts],
  };
}

/** jsconfig.json is tsconfig.json for JavaScript projects: both can hold `paths`. */
const PROJECT_FILES = ['package.json', 'tsconfig.json', 'jsconfig.json', 'pnpm-workspace.yaml'];
const SKIP_DIRECTORIES = ['node_modules', 'dist', 'build', 'coverage', '.next'];

/** What differs between the two languages. */
export interface ScriptDialect {
  id: 'javascript' | 'typescript';
  grammarOf(relPath: string): Grammar;
  rootMarkers: readonly string[];
  topLevelStarts: readonly string[];
}

/** A CodeLanguage for JavaScript or TypeScript. */
export function scriptLanguage(dialect: ScriptDialect): CodeLanguage {
  const project: ProjectRules = { rootMarkers: dialect.rootMarkers, skipDirectories: SKIP_DIRECTORIES, projectFiles: PROJECT_FILES };
  return {
    ...EDITOR_LANGUAGES.find((language) => language.id === dialect.id)!,
    grammarOf: dialect.grammarOf,
    symbols,
    imports: { resolve: resolveImport, dependencyKeys, keyOfFile },
    editing: editing(dialect.topLevelStarts),
    project,
  };
}
