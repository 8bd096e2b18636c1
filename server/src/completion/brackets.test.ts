import { describe, expect, test } from 'vitest';
import { balanceWithSuffix } from './brackets.js';

describe('a call the suffix continues on the next lines', () => {
  const prefix = 'def f(msg):\n    raise Invalid';
  const suffix = '\n        msg,\n        "detail",\n    )\n\nx = 1\n';

  test('keeps the opener and drops the arguments the suffix already has', () => {
    expect(balanceWithSuffix('InvalidZipRepository(msg)', prefix, suffix)).toBe('InvalidZipRepository(');
    expect(balanceWithSuffix('Error(msg, f(x)) ', prefix, suffix)).toBe('Error(');
  });

  test('a completion that already leaves the bracket open is left alone', () => {
    expect(balanceWithSuffix('Error(', prefix, suffix)).toBe('Error(');
    expect(balanceWithSuffix('Error(msg,', prefix, suffix)).toBe('Error(msg,');
  });
});

test('inside brackets closed on the cursor line, the completion stops before the closer', () => {
  expect(balanceWithSuffix('x, y)', 'print(', ')\n')).toBe('x, y');
  expect(balanceWithSuffix('f(x))', 'print(', ')\n')).toBe('f(x)');
  // The suffix's `)` closes the completion's own opener.
  expect(balanceWithSuffix('foo(a)', 'x = ', ')\n')).toBe('foo(a');
});

test('inside a multi-line call whose closer is on a later line', () => {
  const prefix = 'result = call(\n    first,\n    ';
  const suffix = '\n)\nnext_statement()\n';
  expect(balanceWithSuffix('second)', prefix, suffix)).toBe('second');
  expect(balanceWithSuffix('second,', prefix, suffix)).toBe('second,');
});

test('balanced code everywhere: nothing to cut', () => {
  expect(balanceWithSuffix('foo(a, b)', 'x = ', '\ny = 2\n')).toBe('foo(a, b)');
  // The prefix leaves a bracket open and nothing after the cursor closes it: the completion may.
  expect(balanceWithSuffix('a, b)', 'x = foo(', '\n\ny = 2\n')).toBe('a, b)');
});

test('brackets in strings and comments do not count', () => {
  expect(balanceWithSuffix('log(")")', 'x = ', '\ny = 2\n')).toBe('log(")")');
  expect(balanceWithSuffix('log("(")', 'msg = "((("  # (((\nx = ', '\ny = 2\n')).toBe('log("(")');
  expect(balanceWithSuffix('a, b)', 'x = """\n(\n"""\nprint(', ')\n')).toBe('a, b');
  // The closers the suffix has in a string are not unmatched closers.
  expect(balanceWithSuffix('foo(a)', 'x = ', '\ny = ")"\n')).toBe('foo(a)');
});

test('the cursor inside a string or comment, or a completion ending in one: unchanged', () => {
  expect(balanceWithSuffix('a)', 'x = "print(', ')"\n')).toBe('a)');
  expect(balanceWithSuffix('a)', '# note (', ')\n')).toBe('a)');
  expect(balanceWithSuffix('f("a)', 'print(', ')\n')).toBe('f("a)');
});

test('a buffer far out of balance (mid-edit elsewhere) is not trusted', () => {
  expect(balanceWithSuffix('a)', 'x = f(g(h(i(j(', '\n')).toBe('a)');
});

test('statements after the cursor\'s statement are not part of it', () => {
  // The `)` on the dedented line belongs to the next statement's line, not to this one.
  const prefix = 'def f():\n    x = ';
  expect(balanceWithSuffix('g(1)', prefix, '\n    return (\n        x\n    )\n')).toBe('g(1)');
});

test('an unclosed bracket in an earlier top-level definition does not count', () => {
  const prefix = 'def broken():\n    x = f(\n\ndef g():\n    print(';
  expect(balanceWithSuffix('a, b))', prefix, ')\n')).toBe('a, b');
});
