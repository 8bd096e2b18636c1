/**
 * JavaScript and TypeScript: `call_expression` and `new_expression` whose callee is a name or
 * `object.member`. `f()` for `import { f } from './x'` or `const { f } = require('./x')`,
 * `ns.f()` for `import * as ns` or `const ns = require('./x')`, `X()` / `new X()` for a default
 * import or a required module whose export is one definition (`export default`,
 * `module.exports = X`), `C.m()` for an imported class; re-exports (`export { f } from`,
 * `export * from`) are followed.
 */
import type { Definition, FileIndex, IndexView } from '../../../../server/src/indexing/types.js';
import { bindingOf, memberOf, resolveImportedMember, resolveImportedName, topLevelDefinition, type BindingRules } from './importBindings.js';
import type { TaskSyntax } from './taskSyntax.js';

/** `import * as ns` and `const ns = require(…)` bind their alias; `import './x'` binds nothing. */
const BINDINGS: BindingRules = { moduleName: (record) => record.alias, starImports: true };

/** `export default function f`, `export default class C`, `export default f;`, `module.exports = f`. */
const DEFAULT_EXPORT = /^\s*(?:export\s+default\s+(?:async\s+)?(?:function\*?|class)?\s*|module\.exports\s*=\s*)([A-Za-z_$][\w$]*)/m;

/** JavaScript's and TypeScript's task syntax. */
export const scriptTasks: TaskSyntax = {
  stringTypes: ['string', 'template_string'],
  docstrings: false,
  calls: { call_expression: 'function', new_expression: 'constructor' },
  resolveCallee(callee, file, index) {
    if (callee.type === 'identifier') return resolveName(callee.text, file, index);
    if (callee.type !== 'member_expression') return undefined;
    const object = callee.childForFieldName('object');
    const property = callee.childForFieldName('property');
    if (object?.type !== 'identifier' || !property) return undefined;
    return resolveImportedMember(object.text, property.text, file, index, BINDINGS) ?? defaultMember(object.text, property.text, file, index);
  },
};

function resolveName(name: string, file: FileIndex, index: IndexView): Definition | undefined {
  const module = wholeModuleOf(name, file);
  return module === undefined ? resolveImportedName(name, file, index, BINDINGS) : defaultExport(module, index);
}

/** `X.m()` where `X` is a module's default export or `module.exports`, a class. */
function defaultMember(object: string, member: string, file: FileIndex, index: IndexView): Definition | undefined {
  const module = wholeModuleOf(object, file);
  const owner = module === undefined ? undefined : defaultExport(module, index);
  return owner?.kind === 'class' ? memberOf(owner, member, index) : undefined;
}

/** The module whose default export (or whole `module.exports`) `name` is bound to. */
function wholeModuleOf(name: string, file: FileIndex): string | undefined {
  const binding = bindingOf(name, file, BINDINGS);
  if (binding?.kind === 'module' || (binding?.kind === 'symbol' && binding.name === 'default')) return binding.relPath;
  return undefined;
}

/** The definition a module exports as its default (ES) or as the whole module (CommonJS). */
function defaultExport(relPath: string, index: IndexView): Definition | undefined {
  const text = index.file(relPath)?.text;
  const name = text === undefined ? undefined : DEFAULT_EXPORT.exec(text)?.[1];
  return name ? topLevelDefinition(relPath, name, index) : undefined;
}
