/**
 * What a JavaScript or TypeScript definition is, and how it reads in an outline: the definition
 * rules by node type, the signature (header before the body) and the documentation (the comment
 * right above). One table serves both grammars: TypeScript-only node types never occur in
 * JavaScript trees, and JSX needs nothing of its own.
 */
import { headerSignature, precedingComment, textFromLineAbove } from '../braceSyntax.js';
import type { DefinitionRule, EnclosingScope } from '../language.js';
import type { SyntaxNode } from '../syntaxTree.js';

/** Values that make `const name = …` a function definition. */
const FUNCTION_VALUES: ReadonlySet<string> = new Set(['arrow_function', 'function_expression', 'generator_function']);

/** Comments above `export`/`const` belong to the definition; the grammars call every comment `comment`. */
const COMMENT_TYPES = ['comment'];

/** `export function f` covers the `export`; `export declare function f` the `declare` too. */
function exported(node: SyntaxNode, text: string): SyntaxNode {
  if (followsStatementEnd(node, text)) return node;
  let outer = node;
  for (let parent = outer.parent; parent && WRAPPERS.has(parent.type); parent = outer.parent) outer = parent;
  return outer;
}

/** Statements that wrap a declaration and begin with a keyword before it. */
const WRAPPERS: ReadonlySet<string> = new Set(['export_statement', 'ambient_declaration']);

/**
 * Whether `node` starts a statement of its own: only whitespace since a `;`, `{` or `}` (or the
 * file's start), so no `export`/`declare` keyword before it. A cheap look at the text that spares
 * asking the tree for parents; anything else (a keyword, a comment) is left to the tree.
 */
function followsStatementEnd(node: SyntaxNode, text: string): boolean {
  let i = node.startIndex - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return i < 0 || text[i] === ';' || text[i] === '{' || text[i] === '}';
}

/** `const f = () => …` spans its whole statement (`export const f = …;`). */
function declarationOf(declarator: SyntaxNode, text: string): SyntaxNode {
  const declaration = declarator.parent;
  return declaration ? exported(declaration, text) : declarator;
}

/**
 * TypeScript puts a method's decorators before it in the class body (JavaScript inside it):
 * its doc comment is above the first one. (The range cannot include them: it is one node's.)
 */
function withDecorators(node: SyntaxNode, text: string): SyntaxNode {
  // A decorator above ends its line with `)` (a call) or has its `@` there or before the method.
  const above = textFromLineAbove(node.startIndex, text);
  if (!above.includes('@') && !above.trimEnd().endsWith(')')) return node;
  let outer = node;
  for (let previous = node.previousNamedSibling; previous?.type === 'decorator'; previous = previous.previousNamedSibling) outer = previous;
  return outer;
}

/** Whether a `const`/`let`/`var` declarator's value is a function: the text rules most out. */
function declaratorHoldsFunction(node: SyntaxNode, text: string): boolean {
  return !valueIsNoFunction(node.startIndex, text) && holdsFunction(node);
}

/** A JavaScript name as far as the checks below need it (`$` is no `ID_Continue`). */
const NAME = /[\p{ID_Continue}$]+/uy;

/**
 * Whether the text after a declarator's start shows that its value is no function: a pattern
 * (`{ a } = …`), no value (`let a, b;`), or a value that starts with what no function starts with
 * (`= require('x')`, `= 0`, `= new Map()`, `= a.b`). Most declarators are such, and this spares
 * the two tree lookups per declarator that reading the value takes. False whenever unsure: a type
 * annotation (`x: T = …`), `(`, `<`, `function`, `async`, a name followed by `=>`, a comment.
 */
export function valueIsNoFunction(start: number, text: string): boolean {
  NAME.lastIndex = start;
  const name = NAME.exec(text);
  if (!name) return text[start] === '{' || text[start] === '[';
  let i = skipSpace(text, NAME.lastIndex);
  // No `=` after the name is no value at all, unless a type annotation or comment comes first.
  if (text[i] !== '=') return !/[:!/\\]/.test(text[i] ?? '');
  i = skipSpace(text, i + 1);
  NAME.lastIndex = i;
  const value = NAME.exec(text)?.[0];
  if (value === undefined) return !/[(<\/\\]/.test(text[i] ?? '(');
  if (value === 'function' || value === 'async' || text[NAME.lastIndex] === '\\') return false;
  const after = skipSpace(text, NAME.lastIndex);
  return !text.startsWith('=>', after) && text[after] !== '/';
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

/** Whether a `const`/`let`/field's value is a function (an identifier name, not a pattern). */
function holdsFunction(node: SyntaxNode): boolean {
  const value = node.childForFieldName('value');
  return value !== null && FUNCTION_VALUES.has(value.type) && nameOfBinding(node) !== null;
}

/** The name of a declarator or class field: `name` (TypeScript fields, declarators) or `property` (JavaScript fields). */
function nameOfBinding(node: SyntaxNode): SyntaxNode | null {
  const name = node.childForFieldName('name') ?? node.childForFieldName('property');
  return name && (name.type === 'identifier' || name.type === 'property_identifier' || name.type === 'private_property_identifier') ? name : null;
}

/** Methods of classes, interfaces and abstract classes; object literal methods are not definitions. */
const inTypeBody = (node: SyntaxNode): boolean => node.parent?.type === 'class_body' || node.parent?.type === 'interface_body';

/** A method's name, unless it is computed (`[Symbol.iterator]`) or a string: those name nothing one can reference. */
function methodName(node: SyntaxNode): SyntaxNode | null {
  const name = node.childForFieldName('name');
  return name && (name.type === 'property_identifier' || name.type === 'private_property_identifier') ? name : null;
}

/** `const Foo = class { … }`: the class is named by its variable. */
const classExpression: DefinitionRule = {
  kind: 'class',
  accepts: (node) => node.parent?.type === 'variable_declarator' && nameOfBinding(node.parent) !== null,
  nameNode: (node) => (node.parent ? nameOfBinding(node.parent) : null),
  outerNode: (node, text) => (node.parent ? declarationOf(node.parent, text) : node),
};

const method: DefinitionRule = { kind: 'function', accepts: inTypeBody, nameNode: methodName };

/** Definition rules by node type (see README.md for what is deliberately left out). */
export const DEFINITIONS: Readonly<Record<string, DefinitionRule>> = {
  function_declaration: { kind: 'function', outerNode: exported },
  generator_function_declaration: { kind: 'function', outerNode: exported },
  // Overloads and `declare function`: what a .d.ts holds instead of bodies.
  function_signature: { kind: 'function', outerNode: exported },
  class_declaration: { kind: 'class', outerNode: exported },
  abstract_class_declaration: { kind: 'class', outerNode: exported },
  interface_declaration: { kind: 'class', outerNode: exported },
  type_alias_declaration: { kind: 'class', outerNode: exported },
  enum_declaration: { kind: 'class', outerNode: exported },
  method_definition: method,
  method_signature: method,
  abstract_method_signature: method,
  variable_declarator: { kind: 'function', accepts: declaratorHoldsFunction, nameNode: nameOfBinding, outerNode: declarationOf },
  // `handleClick = () => { … }` in a class body: a method in all but syntax.
  field_definition: { kind: 'function', accepts: holdsFunction, nameNode: nameOfBinding },
  public_field_definition: { kind: 'function', accepts: holdsFunction, nameNode: nameOfBinding },
  class: classExpression,
};

/** `Class.method` as people write it; functions inside functions as JSDoc's inner members, `outer~inner`. */
export function qualify(scope: EnclosingScope | undefined, name: string): string {
  if (!scope) return name;
  return scope.kind === 'class' ? `${scope.qualifiedName}.${name}` : `${scope.qualifiedName}~${name}`;
}

/** Class fields, the only definitions besides declarators whose function is their `value`. */
const FIELD_TYPES: ReadonlySet<string> = new Set(['field_definition', 'public_field_definition']);

/** Longest signature kept for a type alias, whose "header" is its whole type. */
const MAX_TYPE_SIGNATURE = 300;

/**
 * The header as an outline shows it: `async function f(a: A): R`, `class C extends B`,
 * `const f = async (x) =>`, `get size(): number`, `type U = A | B`. Decorators and `export` are
 * left out, as Python's signatures leave out decorators.
 */
export function signature(node: SyntaxNode, text: string): string {
  const type = node.type;
  const declarator = type === 'class' ? node.parent : type === 'variable_declarator' ? node : null;
  if (declarator) return variableSignature(declarator, node, text);
  const value = FIELD_TYPES.has(type) ? node.childForFieldName('value') : null;
  const body = FUNCTION_VALUES.has(value?.type ?? '') ? value!.childForFieldName('body') : node.childForFieldName('body');
  const header = headerSignature(afterDecorators(node, text), body, text).replace(/;$/, '');
  return header.length > MAX_TYPE_SIGNATURE ? `${header.slice(0, MAX_TYPE_SIGNATURE)} …` : header;
}

/** `const f = (x) =>` and `const C = class extends B`: the keyword, the name and the value's header. */
function variableSignature(declarator: SyntaxNode, node: SyntaxNode, text: string): string {
  const value = node.type === 'class' ? node : declarator.childForFieldName('value');
  const keyword = declarator.parent?.firstChild;
  const prefix = keyword && ['const', 'let', 'var'].includes(keyword.type) ? `${keyword.type} ` : '';
  return prefix + headerSignature(declarator, value?.childForFieldName('body') ?? null, text);
}

/** JavaScript's grammar keeps decorators inside the class or method node: the header starts after them. */
function afterDecorators(node: SyntaxNode, text: string): SyntaxNode {
  if (text[node.startIndex] !== '@' || node.firstChild?.type !== 'decorator') return node;
  return node.children.find((child) => child !== null && child.type !== 'decorator') ?? node;
}

/** The first line of the JSDoc or `//` comment right above the definition (and its `export`, decorators). */
export function documentation(_node: SyntaxNode, outer: SyntaxNode, text: string): string | undefined {
  return precedingComment(withDecorators(outer, text), text, COMMENT_TYPES);
}
