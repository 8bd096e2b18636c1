/**
 * Rust's definitions as the generic extraction reads them: functions (methods inside `impl` and
 * `trait`), the types (struct, enum, union, trait, type alias) as classes, `impl` blocks as scopes
 * named by their type, inline modules as classes, `macro_rules!` as functions. Signatures are the
 * header before the body's brace; documentation is the comment above, attributes skipped.
 */
import { headerSignature, precedingComment } from '../braceSyntax.js';
import type { DefinitionRule, EnclosingScope } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

const COMMENT_TYPES: readonly string[] = ['line_comment', 'block_comment'];

/** Bodies that open with `{`: a tuple struct's `(…)` fields stay in its signature. */
const BRACE_BODIES: ReadonlySet<string> = new Set(['block', 'declaration_list', 'field_declaration_list', 'enum_variant_list']);

/** Type nodes that wrap the named type of an `impl` (`Foo<T>`, `&mut Foo`, `*const Foo`). */
const TYPE_WRAPPERS: ReadonlySet<string> = new Set(['generic_type', 'reference_type', 'pointer_type']);

/**
 * The type an `impl` is for, by its bare name: `impl<T> Display for Foo<T>` -> `Foo`,
 * `impl fmt::Debug for &a::Bar` -> `Bar`. Tuples, slices and `dyn Trait` keep their whole text,
 * so their methods stay methods of something rather than becoming free functions.
 */
function implTypeName(node: SyntaxNode): SyntaxNode | null {
  let type = node.childForFieldName('type');
  while (type && TYPE_WRAPPERS.has(type.type)) type = type.childForFieldName('type');
  if (type?.type === 'scoped_type_identifier') return type.childForFieldName('name') ?? type;
  return type;
}

/** `type Item = …;` inside an `impl` or `trait` is an associated type, not a type of the module. */
function isModuleLevelType(node: SyntaxNode): boolean {
  const owner = node.parent?.type === 'declaration_list' ? node.parent.parent?.type : undefined;
  return owner !== 'impl_item' && owner !== 'trait_item';
}

/**
 * Rules by node type. An inline module (`mod net { … }`) is a class: `use crate::net;` imports it
 * by name like a type, and its functions read as its members (`net.connect`). A `mod x;` without
 * a body is an import (useDeclarations.ts), not a definition.
 */
export const DEFINITIONS: Readonly<Record<string, DefinitionRule>> = {
  function_item: { kind: 'function' },
  function_signature_item: { kind: 'function' },
  macro_definition: { kind: 'function' },
  struct_item: { kind: 'class' },
  enum_item: { kind: 'class' },
  union_item: { kind: 'class' },
  trait_item: { kind: 'class' },
  type_item: { kind: 'class', accepts: isModuleLevelType },
  impl_item: { kind: 'scope', nameNode: implTypeName },
  mod_item: { kind: 'class', accepts: (node) => node.childForFieldName('body') !== null },
};

/**
 * Members of types and modules are `Type.name`, like other languages' methods; a function
 * nested in a function is `outer::inner`, never taken for a method or a top-level name.
 */
export function qualify(scope: EnclosingScope | undefined, name: string): string {
  if (!scope) return name;
  return scope.kind === 'class' ? `${scope.qualifiedName}.${name}` : `${scope.qualifiedName}::${name}`;
}

/** The header as an outline shows it: `pub fn new(x: i32) -> Self`, `pub struct Foo<T>`, `macro_rules! vec`. */
export function signature(node: SyntaxNode, text: string): string {
  if (node.type === 'macro_definition') {
    const name = node.childForFieldName('name');
    return name ? text.slice(node.startIndex, name.endIndex).replace(/\s+/g, ' ') : 'macro_rules!';
  }
  const body = node.childForFieldName('body');
  return headerSignature(node, body && BRACE_BODIES.has(body.type) ? body : null, text);
}

/**
 * The first line of the comment above the item, or above its attributes: `/// Doc` may be
 * written over `#[derive(…)]` or between the attributes and the item.
 */
export function documentation(_node: SyntaxNode, outer: SyntaxNode, text: string): string | undefined {
  return precedingComment(outer, text, COMMENT_TYPES) ?? precedingComment(attributedStart(outer), text, COMMENT_TYPES);
}

/**
 * The first of the attributes written directly above an item (comments between them allowed),
 * or the item itself. Attributes are the item's siblings in tree-sitter-rust, not its children.
 */
export function attributedStart(node: SyntaxNode): SyntaxNode {
  let first = node;
  for (let sibling = node.previousSibling; sibling; sibling = sibling.previousSibling) {
    if (sibling.type === 'attribute_item') first = sibling;
    else if (!COMMENT_TYPES.includes(sibling.type)) break;
  }
  return first;
}
