/**
 * Go's definitions as the generic extraction reads them: functions, methods (their owner is the
 * receiver's type, written outside the type), and package-level named types. Signatures are
 * headers for an outline; a struct's or interface's members are part of its header, shortened,
 * because in Go they are the type's whole interface (an interface's methods are not definitions
 * of their own: the interface is kept whole).
 */
import { headerSignature, precedingComment } from '../braceSyntax.js';
import type { DefinitionRule } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

/** Member lists longer than this are cut in a type's signature (the outline holds ~480 characters). */
const MAX_MEMBER_CHARS = 120;

/** `//go:noinline`, `//nolint:errcheck`: Go's directive form (go/ast's isDirective), never documentation. */
const DIRECTIVE = /^[a-z0-9]+:[a-z0-9]/;

/** The receiver's type name: `(s *Stack[T])` -> `Stack`; `((*T))` -> `T`. */
export function receiverTypeName(method: SyntaxNode, text: string): string | undefined {
  const receiver = method.childForFieldName('receiver')?.namedChildren.find((c) => c?.type === 'parameter_declaration');
  let type = receiver?.childForFieldName('type') ?? null;
  while (type && type.type !== 'type_identifier') {
    if (type.type === 'generic_type') type = type.childForFieldName('type');
    else if (type.type === 'pointer_type' || type.type === 'parenthesized_type') type = type.firstNamedChild;
    else return undefined;
  }
  return type ? text.slice(type.startIndex, type.endIndex) : undefined;
}

/** Only package-level types: a type declared inside a function is invisible to other files. */
function isPackageLevel(spec: SyntaxNode): boolean {
  return spec.parent?.type === 'type_declaration' && spec.parent.parent?.type === 'source_file';
}

/** `type X int` covers its `type` keyword; a spec of a `type ( … )` group covers its own lines. */
function typeDeclarationOf(spec: SyntaxNode): SyntaxNode {
  const declaration = spec.parent;
  if (declaration?.type !== 'type_declaration') return spec;
  const specs = declaration.namedChildren.filter((c) => c?.type === 'type_spec' || c?.type === 'type_alias');
  return specs.length === 1 ? declaration : spec;
}

const typeRule: DefinitionRule = { kind: 'class', accepts: isPackageLevel, outerNode: typeDeclarationOf };

/** Definition rules by node type. */
export const GO_DEFINITIONS: Readonly<Record<string, DefinitionRule>> = {
  function_declaration: { kind: 'function' },
  method_declaration: { kind: 'function', ownerName: receiverTypeName },
  type_spec: typeRule,
  type_alias: typeRule,
};

/** `func (s *Stack[T]) Push(v T) error`, `type Stack[T any] struct { items []T; mu sync.Mutex }`. */
export function goSignature(node: SyntaxNode, text: string): string {
  if (node.type !== 'type_spec' && node.type !== 'type_alias') return headerSignature(node, node.childForFieldName('body'), text);
  const type = node.childForFieldName('type');
  const members = type && memberList(type);
  if (!members) return `type ${headerSignature(node, null, text)}`;
  const header = headerSignature(node, members.open, text);
  return members.items.length === 0 ? `type ${header}{}` : `type ${header} ${membersText(members.items, text)}`;
}

/** A struct's fields or an interface's elements, and the `{` they start after. */
function memberList(type: SyntaxNode): { open: SyntaxNode; items: SyntaxNode[] } | undefined {
  const holder = type.type === 'struct_type' ? type.namedChildren.find((c) => c?.type === 'field_declaration_list') : type.type === 'interface_type' ? type : undefined;
  const open = holder?.children.find((c) => c?.type === '{');
  if (!holder || !open) return undefined;
  return { open, items: holder.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type !== 'comment') };
}

/** `{ a int; b string; … }`: struct tags dropped (they say nothing of the API), cut at MAX_MEMBER_CHARS. */
function membersText(items: SyntaxNode[], text: string): string {
  const parts: string[] = [];
  let chars = 0;
  for (const item of items) {
    const part = headerSignature(item, item.childForFieldName('tag'), text);
    if (parts.length > 0 && chars + part.length > MAX_MEMBER_CHARS) {
      parts.push('…');
      break;
    }
    parts.push(part);
    chars += part.length + 2;
  }
  return `{ ${parts.join('; ')} }`;
}

/**
 * The doc comment's first line: above the declaration, or, for the only spec of a `type ( … )`
 * group, above the spec inside the parentheses. A leading directive means there is no prose
 * (gofmt moves directives to the end of a doc comment).
 */
export function goDocumentation(node: SyntaxNode, outer: SyntaxNode, text: string): string | undefined {
  const first = precedingComment(outer, text, ['comment']) ?? (outer === node ? undefined : precedingComment(node, text, ['comment']));
  return first === undefined || DIRECTIVE.test(first) ? undefined : first;
}
