import { describe, expect, test } from 'vitest';
import { blockCompletion, isBlockPosition, splitAtCursor, trimSuffixOverlap } from './cursor.js';

describe('splitAtCursor', () => {
  test.each([
    ['middle of a line', 'ab\ncd', { line: 1, character: 1 }, 'ab\nc', 'd', 1],
    ['past the end of a line is clamped to its end', 'ab\ncd', { line: 0, character: 99 }, 'ab', '\ncd', 0],
    ['past the last line is clamped to the end', 'ab\ncd', { line: 9, character: 0 }, 'ab\ncd', '', 1],
    ['negative positions are clamped to the start', 'ab', { line: -3, character: -1 }, '', 'ab', 0],
    ['CRLF is normalized and the \\r is never split', 'ab\r\ncd', { line: 0, character: 2 }, 'ab', '\ncd', 0],
  ])('%s', (_name, text, position, prefix, suffix, line) => {
    const split = splitAtCursor(text, position);
    expect([split.prefix, split.suffix, split.line]).toEqual([prefix, suffix, line]);
  });

  test('UTF-16 code units, as LSP positions', () => {
    expect(splitAtCursor('a😀b', { line: 0, character: 3 }).prefix).toBe('a😀');
  });
});

describe('isBlockPosition', () => {
  const colon = (line: string) => line.trimEnd().endsWith(':');
  const brace = (line: string) => line.trimEnd().endsWith('{');
  test.each([
    ['blank line after a def header', 'def f(x):\n    ', '\n', colon, true],
    ['blank line after a header whose body already exists', 'def f(x):\n    ', '\n    return x\n', colon, false],
    ['mid-line', 'def f(x):\n    y = ', '\n', colon, false],
    ['after indentation of an ordinary line', 'x = 1\n    ', '\n', colon, false],
    ['blank line in a new brace block, its closer below', 'func f() {\n\t', '\n}\n', brace, true],
    ['a brace block whose body exists', 'func f() {\n\t', '\n\treturn 1\n}\n', brace, false],
    ['a colon is no block opener in a brace language', 'case 1:\n\t', '\n', brace, false],
  ])('%s', (_name, prefix, suffix, opensBlock, expected) => {
    expect(isBlockPosition({ prefix, suffix, line: 0, usesCrlf: false }, opensBlock)).toBe(expected);
  });
});

describe('trimSuffixOverlap', () => {
  test('drops closing text the editor already inserted', () => {
    expect(trimSuffixOverlap('foo(a, b))', '))\nrest')).toBe('foo(a, b');
  });
  test('keeps completions that do not overlap', () => {
    expect(trimSuffixOverlap('foo(a)', ' # comment\n')).toBe('foo(a)');
  });
});

test('a huge buffer is split within a bounded window around the cursor, lines counted right', () => {
  const line = 'x = 1\n';
  const text = line.repeat(2_000_000); // 12 MB
  const split = splitAtCursor(text, { line: 1_999_990, character: 2 });
  expect(split.line).toBe(1_999_990);
  expect(split.prefix.length).toBeLessThanOrEqual(400_000);
  expect(split.prefix.endsWith('x = 1\nx ')).toBe(true);
  expect(split.prefix.startsWith('x = 1\n')).toBe(true);
  expect(splitAtCursor(text, { line: 9_999_999, character: 0 }).line).toBe(2_000_000);
});

describe('blockCompletion', () => {
  const split = (prefix: string, suffix: string) => ({ prefix, suffix, line: 0, usesCrlf: false });
  test.each([
    ['a brace block stops before the closer the editor wrote', 'func f() {\n\t', 'return 1\n}\n\nfunc g() {', true, 'return 1'],
    ['nested blocks keep their own closers', 'func f() {\n\t', 'if x {\n\t\treturn 1\n\t}\n\treturn 2\n}', true, 'if x {\n\t\treturn 1\n\t}\n\treturn 2'],
    ['a completion that only closes adds nothing', 'fn f() {\n', '}\n', true, ''],
    ['Python blocks end by indentation: lines are only counted', 'def f():\n    ', 'return 1\n\ndef g():', false, 'return 1\n\ndef g():'],
  ])('%s', (_name, prefix, raw, closesBlocks, expected) => {
    expect(blockCompletion(raw, split(prefix, '\n}\n'), 8, closesBlocks)).toBe(expected);
  });

  test('at most the line limit', () => {
    expect(blockCompletion('a\nb\nc\nd', split('def f():\n  ', ''), 2, false)).toBe('a\nb');
  });
});
