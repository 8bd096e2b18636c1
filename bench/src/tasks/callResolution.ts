/**
 * Resolves a call's callee to a definition through the server's index: the calling file's
 * import records (resolved to workspace files by the server's import resolver) and the symbol
 * graph (`definitionsNamed`). Handles `f()` for `from m import f [as g]`, `m.f()` for
 * `import m [as a]`, `import p.m` and `from p import m`, `C.method()` for an imported class,
 * and names re-exported through another module (`from .api import get` in `__init__.py`).
 */
import type { SyntaxNode } from '../../../server/src/languages/syntaxTree.js';
import type { Definition, FileIndex, IndexView } from '../../../server/src/indexing/types.js';

/** Re-export hops followed (`pkg/__init__.py` -> `pkg/api.py` is one). */
const MAX_REEXPORT_HOPS = 3;

/** What a local name is bound to by the file's imports. */
type Binding =
  | { kind: 'module'; relPath: string }
  | { kind: 'symbol'; relPath: string; name: string };

/** The definition `callee` (a call's `function` node) resolves to, when it is in the index. */
export function resolveCallee(callee: SyntaxNode, file: FileIndex, index: IndexView): Definition | undefined {
  if (callee.type === 'identifier') return resolveName(callee.text, file, index);
  if (callee.type !== 'attribute') return undefined;
  const object = callee.childForFieldName('object');
  const attribute = callee.childForFieldName('attribute');
  if (!object || !attribute) return undefined;
  return resolveAttribute(object.text, attribute.text, file, index);
}

function resolveName(name: string, file: FileIndex, index: IndexView): Definition | undefined {
  const binding = bindingOf(name, file);
  return binding?.kind === 'symbol' ? findDefinition(binding.relPath, binding.name, index, 0) : undefined;
}

function resolveAttribute(object: string, attribute: string, file: FileIndex, index: IndexView): Definition | undefined {
  const binding = bindingOf(object, file);
  if (binding?.kind === 'module') return findDefinition(binding.relPath, attribute, index, 0);
  if (binding?.kind !== 'symbol') return undefined;
  const owner = findDefinition(binding.relPath, binding.name, index, 0);
  if (owner?.kind !== 'class') return undefined;
  return index.definitionsNamed(attribute).find(
    (d) => d.relPath === owner.relPath && d.qualifiedName === `${owner.qualifiedName}.${attribute}`,
  );
}

/** What `name` (an identifier, or a dotted `p.m` of `import p.m`) is bound to by an import. */
export function bindingOf(name: string, file: Pick<FileIndex, 'imports'>): Binding | undefined {
  for (const record of file.imports) {
    if (record.names.length === 0) {
      const bound = record.alias ?? record.module;
      if (bound === name && record.resolvedPath) return { kind: 'module', relPath: record.resolvedPath };
      continue;
    }
    const entry = record.names.find((n) => (n.alias ?? n.name) === name);
    if (!entry) continue;
    if (entry.resolvedPath) return { kind: 'module', relPath: entry.resolvedPath };
    if (record.resolvedPath) return { kind: 'symbol', relPath: record.resolvedPath, name: entry.name };
  }
  return undefined;
}

/** A top-level function or class `name` of `relPath`, following re-exports. */
function findDefinition(relPath: string, name: string, index: IndexView, hops: number): Definition | undefined {
  const direct = index.definitionsNamed(name).find(
    (d) => d.relPath === relPath && d.qualifiedName === name && (d.kind === 'function' || d.kind === 'class'),
  );
  if (direct || hops >= MAX_REEXPORT_HOPS) return direct;
  const module = index.file(relPath);
  const binding = module && bindingOf(name, module);
  return binding?.kind === 'symbol' ? findDefinition(binding.relPath, binding.name, index, hops + 1) : undefined;
}
