/**
 * Rust: `call_expression` (a `macro_invocation` is another node type, never a task). `f()` for
 * a name brought in by `use` (`use crate::a::f;`, `use super::*;`), `m::f()` for a module bound
 * by `use crate::m;` or `mod m;`, `T::new()` for an imported type, its method looked for in the
 * type's file and else in the one `impl` of that name elsewhere; `f::<T>()` as `f()`. A type is
 * called only when it is a tuple struct (`Meters(3)`): `Err(e)` names the prelude's variant even
 * where a crate imports an `Err` enum, and variants are no definitions. Methods
 * called on values (`x.len()`) need types and are left out; so are longer paths (`a::b::f()`),
 * which the server's records do not bind.
 */
import type { Definition, FileIndex, IndexView } from '../../../../server/src/indexing/types.js';
import type { SyntaxNode } from '../../../../server/src/languages/syntaxTree.js';
import { bindingOf, findDefinition, fromStarImports, memberOf, resolveImportedName, type BindingRules } from './importBindings.js';
import type { TaskSyntax } from './taskSyntax.js';

/** `use serde;` binds `serde`, `use regex as re;` binds `re`, `mod util;` (`self::util`) binds `util`. */
const BINDINGS: BindingRules = {
  moduleName: (record) => record.alias ?? record.module.split('::').pop(),
  starImports: true,
};

/** Rust's task syntax. */
export const rustTasks: TaskSyntax = {
  stringTypes: ['string_literal', 'raw_string_literal'],
  docstrings: false,
  calls: { call_expression: 'function' },
  resolveCallee(callee, file, index) {
    const definition = resolveFunction(callee, file, index);
    return definition && (definition.kind !== 'class' || TUPLE_STRUCT.test(definition.signature)) ? definition : undefined;
  },
};

/** `struct Name(…)`, `pub(crate) struct Name<T>(…)`: a type that is called like a function. */
const TUPLE_STRUCT = /^(?:pub(?:\([^)]*\))?\s+)?struct\s+[A-Za-z_]\w*\s*(?:<[^(]*>)?\s*\(/;

function resolveFunction(callee: SyntaxNode, file: FileIndex, index: IndexView): Definition | undefined {
  const target = callee.type === 'generic_function' ? callee.childForFieldName('function') : callee;
  if (target?.type === 'identifier') return resolveImportedName(target.text, file, index, BINDINGS);
  if (target?.type !== 'scoped_identifier') return undefined;
  const path = target.childForFieldName('path');
  const name = target.childForFieldName('name');
  return path?.type === 'identifier' && name ? resolvePath(path, name.text, file, index) : undefined;
}

/** `path::name` where `path` is one imported module or type. */
function resolvePath(path: SyntaxNode, name: string, file: FileIndex, index: IndexView): Definition | undefined {
  const binding = bindingOf(path.text, file, BINDINGS);
  if (binding?.kind === 'module') return findDefinition(binding.relPath, name, index, BINDINGS);
  const owner = binding ? findDefinition(binding.relPath, binding.name, index, BINDINGS) : fromStarImports(path.text, file, index, BINDINGS);
  return owner?.kind === 'class' ? memberOf(owner, name, index) ?? implementedElsewhere(owner, name, index) : undefined;
}

/** `Type.name` from an `impl Type` in another file, when exactly one file has one. */
function implementedElsewhere(owner: Definition, name: string, index: IndexView): Definition | undefined {
  const found = index.definitionsNamed(name).filter((d) => d.qualifiedName === `${owner.name}.${name}`);
  return found.length === 1 ? found[0] : undefined;
}
