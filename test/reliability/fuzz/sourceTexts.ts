/**
 * Source-like text for fuzzed buffers and files in every language the server reads: random bytes
 * and text, and each language's pathological shapes. The shapes nest far past written code, make
 * long lists, and feed the constructs the language rules take apart (imports, use trees,
 * definitions, receivers) with odd parts: where a recursive walk or a rule that assumes sane input
 * would throw. Nesting goes one level per line, since a line over 300 characters makes the file
 * "minified" and the parser never sees it.
 */
import type { LanguageId } from '../../../shared/languages.js';
import type { Random } from '../random.js';

type Shape = (random: Random) => string;

/** Deep enough to overflow any recursion over the tree (Node's stack holds ~10,000 frames). */
const depth = (random: Random): number => random.between(50, 20_000);

/** `open` and `close` repeated, one level per line, around `inner`. */
function nestedLines(open: string, close: string, inner = ''): Shape {
  return (random) => {
    const levels = depth(random);
    return `${`${open}\n`.repeat(levels)}${inner}\n${`${close}\n`.repeat(levels)}`;
  };
}

/** `count` names, comma-separated and one per line. */
function names(random: Random, prefix: string, count = random.int(2_000)): string {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(',\n');
}

const SHAPES: Record<LanguageId, readonly Shape[]> = {
  python: [
    (random) => '('.repeat(random.between(100, 20_000)),
    nestedLines('x = (', ')'),
    (random) => Array.from({ length: random.between(10, 400) }, (_, i) => `${' '.repeat(i)}if x${i}:`).join('\n'),
    (random) => `def f(${'a, '.repeat(random.int(3_000))}):\n    return """${random.text(200)}`,
    (random) => `class C:\n${'    def m(self): pass\n'.repeat(random.int(500))}`,
    (random) => 'x = 1\n'.repeat(random.int(5_000)),
    (random) => `import ${'a.'.repeat(random.int(100))}b\nfrom . import (${names(random, 'c')})`,
  ],
  javascript: [
    nestedLines('x = [', ']'),
    nestedLines('module.exports = { a:', '}'),
    nestedLines('(function () { a();', '})();'),
    nestedLines('const f = () =>', '', '1;'),
    nestedLines('class A { m() { class B', '} }', '{}'),
    nestedLines('const {a:', '}', 'x } = require("m");'),
    (random) => `import def, { ${names(random, 'n')} } from './m.js';\nexport * from '${random.text(20)}';\n` +
      `const m = await import(${random.pick(['', '1', '`x${y}`', "'./a' + b", "'./b.js'"])});\nconst r = require(${random.pick(['', 'x', "'./c'", '`d`'])});`,
    (random) => `x = \`${'${`\n'.repeat(random.between(10, 2_000))}`,
  ],
  typescript: [
    nestedLines('let x: Array<', '>', 'number'),
    nestedLines('namespace N {', '}', 'export function f(): void {}'),
    nestedLines('@d(', ')', 'class C {}'),
    nestedLines('type T = { a:', '}', 'string'),
    (random) => `import x = require('${random.text(10)}');\nimport type { ${names(random, 'T')} } from '@scope/pkg/${random.text(5)}';`,
    (random) => `type U =\n${Array.from({ length: random.int(3_000) }, (_, i) => `  | 'v${i}'`).join('\n')};`,
    (random) => `export default class implements ${names(random, 'I', random.int(500))} { ${random.text(100)} }`,
  ],
  go: [
    (random) => `package main\nimport (\n${Array.from({ length: random.int(3_000) }, (_, i) => `  p${i} "${random.text(8)}"`).join('\n')}\n)\n`,
    nestedLines('package main\nfunc f() {\nx := func() {', '}'),
    nestedLines('type T struct { A', '}', 'int'),
    nestedLines('var x = []any{', '}'),
    (random) => `package main\nfunc (${random.pick(['', '*', 't *T[', 'a, b T', 't T[K, V]'])}) m() {}\nfunc g${'[T any]'.repeat(random.int(50))}() {}`,
    (random) => `package main\ntype I interface {\n${Array.from({ length: random.int(2_000) }, (_, i) => `  M${i}(${random.text(6)})`).join('\n')}\n}`,
  ],
  rust: [
    nestedLines('use a::{x,', '}', 'z;'),
    nestedLines('mod m {', '}', 'pub fn f() {}'),
    nestedLines('fn f() { m!(', ')', ''),
    nestedLines('impl X for Vec<', '>', 'u8 { fn f(&self) {} }'),
    nestedLines('fn f() { let c = |x|', '', 'x; }'),
    (random) => `${'mod m;\n'.repeat(random.int(2_000))}use super::${'super::'.repeat(random.int(50))}x;\nuse ::{${random.text(30)}};`,
    (random) => `use crate::{\n${names(random, 'item')}\n};\npub use self::{${random.text(40)}} as ${random.text(5)};`,
  ],
};

/** Random bytes decoded, random text, or one of the language's pathological shapes. */
export function sourceText(random: Random, language: LanguageId): string {
  const shapes = SHAPES[language];
  return random.weighted<() => string>([
    [4, () => random.text(random.int(2_000))],
    [3, () => random.bytes(random.int(2_000)).toString('utf8')],
    [2, () => random.bytes(random.int(2_000)).toString('latin1')],
    [shapes.length, () => random.pick(shapes)(random)],
  ])();
}

