import { describe, expect, test } from 'vitest';
import python from '../languages/python/python.js';
import { cStyleLexical } from '../languages/braceSyntax.js';
import type { EditingRules } from '../languages/language.js';
import { balanceWithSuffix } from './brackets.js';

const PY = python.editing;
/** A brace language's rules, as JavaScript writes strings (backticks span lines). */
const BRACES: EditingRules = {
  lineComment: '//', lexical: cStyleLexical(['"', "'", '`'], ['`']), opensBlock: (line) => line.trimEnd().endsWith('{'), topLevelStarts: ['function '],
};

describe('a call the suffix continues on the next lines', () => {
  const prefix = 'def f(msg):\n    raise Invalid';
  const suffix = '\n        msg,\n        "detail",\n    )\n\nx = 1\n';

  test('keeps the opener and drops the arguments the suffix already has', () => {
    expect(balanceWithSuffix('InvalidZipRepository(msg)', prefix, suffix, PY)).toBe('InvalidZipRepository(');
    expect(balanceWithSuffix('Error(msg, f(x)) ', prefix, suffix, PY)).toBe('Error(');
  });

  test('a completion that already leaves the bracket open is left alone', () => {
    expect(balanceWithSuffix('Error(', prefix, suffix, PY)).toBe('Error(');
    expect(balanceWithSuffix('Error(msg,', prefix, suffix, PY)).toBe('Error(msg,');
  });
});

test('inside brackets closed on the cursor line, the completion stops before the closer', () => {
  expect(balanceWithSuffix('x, y)', 'print(', ')\n', PY)).toBe('x, y');
  expect(balanceWithSuffix('f(x))', 'print(', ')\n', PY)).toBe('f(x)');
  // The suffix's `)` closes the completion's own opener.
  expect(balanceWithSuffix('foo(a)', 'x = ', ')\n', PY)).toBe('foo(a');
});

test('inside a multi-line call whose closer is on a later line', () => {
  const prefix = 'result = call(\n    first,\n    ';
  const suffix = '\n)\nnext_statement()\n';
  expect(balanceWithSuffix('second)', prefix, suffix, PY)).toBe('second');
  expect(balanceWithSuffix('second,', prefix, suffix, PY)).toBe('second,');
});

test('balanced code everywhere: nothing to cut', () => {
  expect(balanceWithSuffix('foo(a, b)', 'x = ', '\ny = 2\n', PY)).toBe('foo(a, b)');
  // The prefix leaves a bracket open and nothing after the cursor closes it: the completion may.
  expect(balanceWithSuffix('a, b)', 'x = foo(', '\n\ny = 2\n', PY)).toBe('a, b)');
});

test('brackets in strings and comments do not count', () => {
  expect(balanceWithSuffix('log(")")', 'x = ', '\ny = 2\n', PY)).toBe('log(")")');
  expect(balanceWithSuffix('log("(")', 'msg = "((("  # (((\nx = ', '\ny = 2\n', PY)).toBe('log("(")');
  expect(balanceWithSuffix('a, b)', 'x = """\n(\n"""\nprint(', ')\n', PY)).toBe('a, b');
  // The closers the suffix has in a string are not unmatched closers.
  expect(balanceWithSuffix('foo(a)', 'x = ', '\ny = ")"\n', PY)).toBe('foo(a)');
});

test('the cursor inside a string or comment, or a completion ending in one: unchanged', () => {
  expect(balanceWithSuffix('a)', 'x = "print(', ')"\n', PY)).toBe('a)');
  expect(balanceWithSuffix('a)', '# note (', ')\n', PY)).toBe('a)');
  expect(balanceWithSuffix('f("a)', 'print(', ')\n', PY)).toBe('f("a)');
});

test('a buffer far out of balance (mid-edit elsewhere) is not trusted', () => {
  expect(balanceWithSuffix('a)', 'x = f(g(h(i(j(', '\n', PY)).toBe('a)');
});

test('statements after the cursor\'s statement are not part of it', () => {
  // The `)` on the dedented line belongs to the next statement's line, not to this one.
  const prefix = 'def f():\n    x = ';
  expect(balanceWithSuffix('g(1)', prefix, '\n    return (\n        x\n    )\n', PY)).toBe('g(1)');
});

test('an unclosed bracket in an earlier top-level definition does not count', () => {
  const prefix = 'def broken():\n    x = f(\n\ndef g():\n    print(';
  expect(balanceWithSuffix('a, b))', prefix, ')\n', PY)).toBe('a, b');
});

test('brace languages: // and /* */ comments and template strings hold no brackets', () => {
  expect(balanceWithSuffix('x, y)', 'print(', ')\n', BRACES)).toBe('x, y');
  expect(balanceWithSuffix('a)', '// note (', ')\n', BRACES)).toBe('a)');
  expect(balanceWithSuffix('a, b)', 'const s = `\n(\n`;\nf(', ')\n', BRACES)).toBe('a, b');
  expect(balanceWithSuffix('a, b)', '/* ( */ f(', ')\n', BRACES)).toBe('a, b');
  // `#` is no comment in JavaScript: the bracket after it counts.
  expect(balanceWithSuffix('a)', 'x = f(#', ')\n', BRACES)).toBe('a');
});
