import { describe, expect, test } from 'vitest';
import { alphanumericDensity, checkCorpusFile, nonEmptyLineCount, normalizedLines } from './textFilters.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const code = (lines: number) => Array.from({ length: lines }, (_, i) => `value_${i} = compute(${i})`).join('\n') + '\n';

describe('checkCorpusFile (RepoShapley A.2)', () => {
  test.each([
    ['ten non-empty lines pass', code(10), 'ok'],
    ['nine non-empty lines are too short', code(9) + '\n\n   \n', 'too-short'],
    ['a 301-character line is minified', code(12) + 'x'.repeat(301) + '\n', 'minified'],
    ['a mean line over 120 is minified', Array.from({ length: 12 }, () => 'a'.repeat(150)).join('\n'), 'minified'],
    ['symbol soup has low alphanumeric density', Array.from({ length: 12 }, () => '#  ----  ====  ****  ++++ ;;').join('\n'), 'low-alphanumeric'],
    ['a NUL byte is binary', code(12) + '\0', 'binary'],
  ])('%s', (_name, text, expected) => {
    const check = checkCorpusFile(bytes(text));
    expect(check.kind === 'ok' ? 'ok' : check.reason).toBe(expected);
  });

  test('over 1 MiB is too large', () => {
    const check = checkCorpusFile(new Uint8Array(1024 * 1024 + 1).fill(97));
    expect(check.kind === 'skip' && check.reason).toBe('too-large');
  });

  test('invalid UTF-8 is decoded permissively', () => {
    const check = checkCorpusFile(Buffer.concat([bytes(code(12)), Buffer.from([0xff, 0x0a])]));
    expect(check.kind).toBe('ok');
  });
});

test('alphanumericDensity counts letters and digits of any script over all characters', () => {
  expect(alphanumericDensity('ab 12')).toBeCloseTo(4 / 5);
  expect(alphanumericDensity('é= ')).toBeCloseTo(1 / 3);
  expect(alphanumericDensity('')).toBe(0);
});

test('nonEmptyLineCount ignores whitespace-only lines', () => {
  expect(nonEmptyLineCount('a\n  \n\tb\n\n')).toBe(2);
});

test('normalizedLines collapses whitespace and drops blank lines', () => {
  expect(normalizedLines('  def f( a,\tb ):  \n\n    return   a\r\n')).toEqual(['def f( a, b ):', 'return a']);
});
