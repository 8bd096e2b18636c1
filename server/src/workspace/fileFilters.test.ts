import { describe, expect, test } from 'vitest';
import { DEFAULT_CONTENT_LIMITS, bracketDepth, checkFileBytes, checkText, decodeUtf8, isBinary, isMinified, isTooLarge, lineLengthStats } from './fileFilters.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('content rules', () => {
  test.each([
    { name: 'ordinary code', text: 'def f():\n    return 1\n', expected: 'ok' },
    { name: 'empty file', text: '', expected: 'ok' },
    { name: 'one line of exactly 300 chars', text: `${'x'.repeat(300)}\n${'a = 1\n'.repeat(9)}`, expected: 'ok' },
    { name: 'one line of 301 chars', text: `${'x'.repeat(301)}\n${'a = 1\n'.repeat(9)}`, expected: 'minified' },
    { name: 'long line made of trailing whitespace', text: `x = 1${' '.repeat(500)}\r\n`, expected: 'ok' },
    { name: 'mean line length over 120', text: `${'y'.repeat(130)}\n`.repeat(5), expected: 'minified' },
    { name: 'mean line length 120 exactly', text: `${'y'.repeat(120)}\n`.repeat(5), expected: 'ok' },
    { name: 'NUL byte', text: 'a = 1\n\0', expected: 'binary' },
    { name: 'brackets 256 deep, one level a line', text: `${'x = (\n'.repeat(256)}${')\n'.repeat(256)}`, expected: 'ok' },
    { name: 'brackets 257 deep', text: `${'class A { m() {\n'.repeat(128)}x = [\n${'}}\n'.repeat(128)}]\n`, expected: 'deeply-nested' },
    { name: 'openers never closed', text: 'f(\n'.repeat(300), expected: 'deeply-nested' },
    { name: 'escape-sequence table in double quotes', text: '{\n' + '    "\\x1b[%d;%dR": 1,\n'.repeat(400) + '}\n', expected: 'ok' },
  ])('$name -> $expected', ({ text, expected }) => {
    const fromBytes = checkFileBytes(bytes(text));
    const fromText = checkText(text);
    expect(fromBytes.kind === 'ok' ? 'ok' : fromBytes.reason).toBe(expected);
    expect(fromText.kind === 'ok' ? 'ok' : fromText.reason).toBe(expected);
  });

  test('size limit is "over 1 MiB"', () => {
    expect(isTooLarge(DEFAULT_CONTENT_LIMITS.maxBytes)).toBe(false);
    expect(isTooLarge(DEFAULT_CONTENT_LIMITS.maxBytes + 1)).toBe(true);
    const big = 'x = 1\n'.repeat(200_000);
    expect(checkFileBytes(bytes(big))).toMatchObject({ kind: 'skip', reason: 'too-large' });
    expect(checkText(big)).toMatchObject({ kind: 'skip', reason: 'too-large' });
    // Multi-byte text: the limit is in UTF-8 bytes, not UTF-16 units.
    expect(checkText('é'.repeat(600_000))).toMatchObject({ kind: 'skip', reason: 'too-large' });
  });

  test('decoding replaces invalid UTF-8 and drops a BOM', () => {
    expect(decodeUtf8(new Uint8Array([0x61, 0xc3, 0x28, 0x62]))).toBe('a\uFFFD(b');
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x78]))).toBe('x');
    expect(isBinary(new Uint8Array([1, 2, 0]))).toBe(true);
  });

  test('line statistics ignore the final newline and trailing whitespace', () => {
    expect(lineLengthStats('ab  \ncd\n')).toEqual({ lines: 2, longest: 2, mean: 2 });
    expect(lineLengthStats('')).toEqual({ lines: 0, longest: 0, mean: 0 });
    expect(isMinified('short\n')).toBe(false);
  });

  test('bracket depth: any bracket kind, strays and double-quoted strings left out', () => {
    expect(bracketDepth('f(a[1], {b: (c)})')).toBe(3);
    expect(bracketDepth(')))]]} (x)')).toBe(1);
    expect(bracketDepth('s = "((([[" + t("]")')).toBe(1);
    expect(bracketDepth('s = "a\\"((" + (1)')).toBe(1); // The escaped quote does not end the string.
    expect(bracketDepth('s = "open((\n((')).toBe(2); // A line break ends an unterminated string.
  });
});
