/**
 * Names bound by import records, and the definitions they reach: what Python, Rust and
 * JavaScript share (Go binds packages, not names: goTasks.ts). A language says which name a
 * record without names binds and whether `*` imports count; the rest is the same walk over the
 * server's resolved records and its symbol graph (`definitionsNamed`).
 */
import type { Definition, FileIndex, ImportRecord, IndexView } from '../../../../server/src/indexing/types.js';

/** Re-export hops followed (`pkg/__init__.py` -> `pkg/api.py` is one). */
export const MAX_REEXPORT_HOPS = 3;

/** What a local name is bound to by a file's imports. */
export type Binding =
  | { kind: 'module'; relPath: string }
  | { kind: 'symbol'; relPath: string; name: string };

/** How a language's import records bind local names. */
export interface BindingRules {
  /** The name a record without names binds (`import m as a`, `mod util;`), if any. */
  moduleName(record: ImportRecord): string | undefined;
  /**
   * Whether `*` imports bring in their module's names (Rust `use m::*`, JS `export * from`).
   * Python's are left out: its tasks were chosen without them, and a change would reshuffle them.
   */
  starImports: boolean;
}

/** What `name` is bound to by the imports of `file`. */
export function bindingOf(name: string, file: Pick<FileIndex, 'imports'>, rules: BindingRules): Binding | undefined {
  for (const record of file.imports) {
    if (record.names.length === 0) {
      if (record.resolvedPath && rules.moduleName(record) === name) return { kind: 'module', relPath: record.resolvedPath };
      continue;
    }
    const entry = record.names.find((n) => (n.alias ?? n.name) === name);
    if (!entry) continue;
    if (entry.resolvedPath) return { kind: 'module', relPath: entry.resolvedPath };
    if (record.resolvedPath) return { kind: 'symbol', relPath: record.resolvedPath, name: entry.name };
  }
  return undefined;
}

/** A top-level function or class `name` of `relPath`. */
export function topLevelDefinition(relPath: string, name: string, index: IndexView): Definition | undefined {
  return index.definitionsNamed(name).find(
    (d) => d.relPath === relPath && d.qualifiedName === name && (d.kind === 'function' || d.kind === 'class'),
  );
}

/** A top-level function or class `name` of `relPath`, following re-exports. */
export function findDefinition(relPath: string, name: string, index: IndexView, rules: BindingRules, hops = 0): Definition | undefined {
  const direct = topLevelDefinition(relPath, name, index);
  if (direct || hops >= MAX_REEXPORT_HOPS) return direct;
  const module = index.file(relPath);
  if (!module) return undefined;
  const binding = bindingOf(name, module, rules);
  if (binding?.kind === 'symbol') return findDefinition(binding.relPath, binding.name, index, rules, hops + 1);
  return binding ? undefined : fromStarImports(name, module, index, rules, hops + 1);
}

/** `name` from the modules `file` imports with `*`, when the language counts them. */
export function fromStarImports(name: string, file: FileIndex, index: IndexView, rules: BindingRules, hops = 0): Definition | undefined {
  if (!rules.starImports || hops > MAX_REEXPORT_HOPS) return undefined;
  for (const record of file.imports) {
    if (!record.resolvedPath || !record.names.some((n) => n.name === '*')) continue;
    const found = findDefinition(record.resolvedPath, name, index, rules, hops);
    if (found) return found;
  }
  return undefined;
}

/** The definition an imported `name` reaches: `f()` after `from m import f`, `use a::f`, `import {f}`. */
export function resolveImportedName(name: string, file: FileIndex, index: IndexView, rules: BindingRules): Definition | undefined {
  const binding = bindingOf(name, file, rules);
  if (binding?.kind === 'symbol') return findDefinition(binding.relPath, binding.name, index, rules);
  return binding ? undefined : fromStarImports(name, file, index, rules);
}

/**
 * `object.member` (or `object::member`): a function of an imported module, or a member of an
 * imported class, looked for in the class's own file.
 */
export function resolveImportedMember(
  object: string, member: string, file: FileIndex, index: IndexView, rules: BindingRules,
): Definition | undefined {
  const binding = bindingOf(object, file, rules);
  if (binding?.kind === 'module') return findDefinition(binding.relPath, member, index, rules);
  const owner = binding ? findDefinition(binding.relPath, binding.name, index, rules) : fromStarImports(object, file, index, rules);
  return owner?.kind === 'class' ? memberOf(owner, member, index) : undefined;
}

/** `owner.member` defined in the owner's file. */
export function memberOf(owner: Definition, member: string, index: IndexView): Definition | undefined {
  return index.definitionsNamed(member).find((d) => d.relPath === owner.relPath && d.qualifiedName === `${owner.qualifiedName}.${member}`);
}
