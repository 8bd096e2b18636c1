/**
 * Python: `call` nodes; `f()` for `from m import f [as g]`, `m.f()` for `import m [as a]`,
 * `import p.m` and `from p import m`, `C.method()` for an imported class, and names re-exported
 * through another module (`from .api import get` in `__init__.py`). Docstrings are prose.
 */
import type { ImportRecord } from '../../../../server/src/indexing/types.js';
import { resolveImportedMember, resolveImportedName, type BindingRules } from './importBindings.js';
import type { TaskSyntax } from './taskSyntax.js';

/** `import p.m` binds the dotted `p.m`, which an attribute's object text matches. */
const BINDINGS: BindingRules = {
  moduleName: (record: ImportRecord) => record.alias ?? record.module,
  starImports: false,
};

/** Python's task syntax. */
export const pythonTasks: TaskSyntax = {
  stringTypes: ['string'],
  docstrings: true,
  calls: { call: 'function' },
  resolveCallee(callee, file, index) {
    if (callee.type === 'identifier') return resolveImportedName(callee.text, file, index, BINDINGS);
    if (callee.type !== 'attribute') return undefined;
    const object = callee.childForFieldName('object');
    const attribute = callee.childForFieldName('attribute');
    return object && attribute ? resolveImportedMember(object.text, attribute.text, file, index, BINDINGS) : undefined;
  },
};
