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
    // Bare, aliased and subpath specifiers: resolution reads package.json, tsconfig.json and the workspace's packages.
    (random) => ['@/util', 'pkg/sub', '#internal', '@a/b/c', '~/x', 'lodash', random.text(12)]
      .map((specifier, i) => (i % 2 ? `import x${i} from '${specifier}';` : `const y${i} = require('${specifier}');`)).join('\n'),
  ],
  typescript: [
    nestedLines('let x: Array<', '>', 'number'),
    nestedLines('namespace N {', '}', 'export function f(): void {}'),
    nestedLines('@d(', ')', 'class C {}'),
    nestedLines('type T = { a:', '}', 'string'),
    (random) => `import x = require('${random.text(10)}');\nimport type { ${names(random, 'T')} } from '@scope/pkg/${random.text(5)}';`,
    (random) => `type U =\n${Array.from({ length: random.int(3_000) }, (_, i) => `  | 'v${i}'`).join('\n')};`,
    (random) => `export default class implements ${names(random, 'I', random.int(500))} { ${random.text(100)} }`,
    (random) => ['@/util', '@app/x', 'pkg/sub', '#internal', random.text(12)].map((specifier, i) => `import type { T${i} } from '${specifier}';`).join('\n'),
  ],
  go: [
    (random) => `package main\nimport (\n${Array.from({ length: random.int(3_000) }, (_, i) => `  p${i} "${random.text(8)}"`).join('\n')}\n)\n`,
    nestedLines('package main\nfunc f() {\nx := func() {', '}'),
    nestedLines('type T struct { A', '}', 'int'),
    nestedLines('var x = []any{', '}'),
    (random) => `package main\nfunc (${random.pick(['', '*', 't *T[', 'a, b T', 't T[K, V]'])}) m() {}\nfunc g${'[T any]'.repeat(random.int(50))}() {}`,
    (random) => `package main\nimport (\n  "m/${random.text(6)}"\n  x "a/b/c"\n  . "m/pkg"\n)\n`,
    (random) => `package main\ntype I interface {\n${Array.from({ length: random.int(2_000) }, (_, i) => `  M${i}(${random.text(6)})`).join('\n')}\n}`,
  ],
  rust: [
    nestedLines('use a::{x,', '}', 'z;'),
    nestedLines('mod m {', '}', 'pub fn f() {}'),
    nestedLines('fn f() { m!(', ')', ''),
    nestedLines('impl X for Vec<', '>', 'u8 { fn f(&self) {} }'),
    nestedLines('fn f() { let c = |x|', '', 'x; }'),
    (random) => `${'mod m;\n'.repeat(random.int(2_000))}use super::${'super::'.repeat(random.int(50))}x;\nuse ::{${random.text(30)}};`,
    (random) => `use other_crate::x;\nuse ${random.text(8)}::y;\nextern crate z;\nmod ${random.pick(['a', 'b', 'r#type', random.text(4)])};`,
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

/** Nesting for a project file: its parser's stack, not the tree's, is what it tries. */
const deepProject = (random: Random): number => random.between(5_000, 50_000);

/** A project file's pathological shapes, by name: what import resolution parses and follows. */
const PROJECT_SHAPES: Record<string, readonly Shape[]> = {
  'package.json': [
    (random) => `{"name":"p","main":${'['.repeat(deepProject(random))}`,
    (random) => `{"name":"@a/b","exports":{${Array.from({ length: random.int(2_000) }, (_, i) => `"./p${i}/*":"./src/*${i}.js"`).join(',')}},"imports":{"#x/*":["#x/*"]}}`,
    (random) => `{"workspaces":${random.pick(['["**/**/**"]', '{"packages":["../../*", "/etc/*"]}', '"apps/*"', 'null'])},"main":"${random.text(30)}"}`,
  ],
  'tsconfig.json': [
    (random) => `{"extends":"./tsconfig.json","compilerOptions":{"paths":${'{"a":\n'.repeat(deepProject(random))}1}}`,
    (random) => JSON.stringify({ extends: Array(random.between(2, 200)).fill('./tsconfig.json'), compilerOptions: { baseUrl: '.' } }),
    (random) => `{"extends":["./a.json","../tsconfig.json","${random.text(10)}"],"compilerOptions":{"baseUrl":"../..","paths":{"*":["*","../*"],"@/*":[${random.text(20)}]}}}`,
    // Comments and trailing commas are allowed; unterminated ones are not.
    (random) => `// ${random.text(40)}\n{"compilerOptions":{"paths":{"x/*":["src/*",],},},/* ${random.text(40)}`,
  ],
  'pnpm-workspace.yaml': [
    (random) => `packages:\n${'- ['.repeat(deepProject(random))}\n`,
    (random) => `a: &a [x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 9 }, (_, i) => `${'bcdefghij'[i]}: &${'bcdefghij'[i]} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(', ')}]`).join('\n')}\npackages: *j\n`,
    (random) => `packages:\n${Array.from({ length: random.int(2_000) }, () => `  - '${random.pick(['**', '../*', '/*', '!**/x', random.text(8)])}'`).join('\n')}\n`,
  ],
  'Cargo.toml': [
    (random) => `[package]\nname = "x"\n[dependencies]\ny = ${'['.repeat(deepProject(random))}`,
    (random) => `[workspace]\nmembers = [${Array.from({ length: random.int(500) }, () => `"${random.pick(['*', '../*', '/', 'crates/**', random.text(6)])}"`).join(', ')}]\n[dependencies]\na = { path = "../../.." }\nb = { path = "${random.text(12)}", package = "${random.text(5)}" }\n`,
    (random) => `[lib]\nname = ${random.pick(['1', '"', '[]', '"a-b"', '{ x = 1 }'])}\n[[bin]]\npath = "${random.text(10)}"\n`,
  ],
  'go.mod': [
    (random) => `module ${'a/'.repeat(random.int(50_000))}b\ngo 1.21\n`,
    (random) => `module m\nreplace (\n${Array.from({ length: random.int(3_000) }, (_, i) => `  x${i} => ${random.pick(['../x', '/', './..', 'y v1.0.0', random.text(6)])}`).join('\n')}\n)\n`,
    (random) => `module\n${random.text(200)}\nrequire ( ${random.text(100)}`,
  ],
  'go.work': [
    (random) => `go 1.21\nuse (\n${Array.from({ length: random.int(2_000) }, () => `  ${random.pick(['.', '..', '/', './a/../..', random.text(6)])}`).join('\n')}\n)\n`,
  ],
};
PROJECT_SHAPES['jsconfig.json'] = PROJECT_SHAPES['tsconfig.json']!;

/** The project file names import resolution reads. */
export const PROJECT_FILE_NAMES: readonly string[] = Object.keys(PROJECT_SHAPES);

/** Random bytes, random text, or one of the file's pathological shapes. */
export function projectFileText(random: Random, name: string): string {
  const shapes = PROJECT_SHAPES[name] ?? [];
  return random.weighted<() => string>([
    [2, () => random.text(random.int(2_000))],
    [1, () => random.bytes(random.int(2_000)).toString('utf8')],
    [shapes.length, () => random.pick(shapes)(random)],
  ])();
}
