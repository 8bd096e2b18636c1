import { describe, expect, test } from 'vitest';
import {
  codePointDistance, codePointLength, dynamicProgramDistance, editSimilarity, exactMatch, extractIdentifiers, identifierMatch, scoreCompletion,
  stripStringsAndComments,
} from './textMetrics.js';
import { languageOfPath } from '../../../server/src/languages/registry.js';

describe('exactMatch (RepoShapley A.1, whitespace-trimmed)', () => {
  test.each([
    ['x = 1', 'x = 1', true],
    ['  x = 1\n', 'x = 1', true],
    ['x = 1', 'x =  1', false],
    ['', '', true],
    ['', '   \n', true],
    ['x', '', false],
    ['😀', '😀', true],
    ['😀', '😁', false],
  ])('%j vs %j -> %s', (prediction, target, expected) => {
    expect(exactMatch(prediction, target)).toBe(expected);
  });
});

describe('editSimilarity (1 - Lev / max(|Ŷ|,|Y|)) × 100, code points', () => {
  test.each([
    // Hand-computed: kitten -> sitting is 3 edits over max(6, 7) = 7.
    ['kitten', 'sitting', (1 - 3 / 7) * 100],
    ['abc', 'abc', 100],
    ['abc', 'xyz', 0],
    ['abc', '', 0],
    ['', 'abc', 0],
    ['', '', 100],
    ['  ', '\n', 100],
    ['return x', '  return x  ', 100],
    // One insertion over 4 characters.
    ['abc', 'abcd', 75],
    // Surrogate pairs: one code point each. 😀 -> 😁 is one substitution of one: 0, not 50.
    ['😀', '😁', 0],
    // 'a😀' vs 'a😁': 1 substitution over 2 code points -> 50 (UTF-16 units would give 2/3 -> 66.7... wrong way round).
    ['a😀', 'a😁', 50],
    // Insertion of an astral character: 1 edit over 3 code points.
    ['ab', 'a𝒜b', (1 - 1 / 3) * 100],
    // BMP non-ASCII counts one per character as well.
    ['café', 'cafe', 75],
  ])('%j vs %j -> %d', (prediction, target, expected) => {
    expect(editSimilarity(prediction, target)).toBeCloseTo(expected, 10);
  });

  test('is symmetric', () => {
    expect(editSimilarity('foo(bar)', 'foo(baz, 1)')).toBeCloseTo(editSimilarity('foo(baz, 1)', 'foo(bar)'), 12);
  });
});

describe('code points', () => {
  test.each([
    ['', 0], ['abc', 3], ['😀', 1], ['a😀b', 3], ['\uD83D', 1], ['é', 1], ['e\u0301', 2],
  ])('length of %j is %d', (text, expected) => {
    expect(codePointLength(text)).toBe(expected);
  });

  test.each([
    ['😀😀', '😀', 1],
    ['😀x', 'x😀', 2],
    ['𝒜𝒝𝒞', '𝒜𝒞', 1],
    // Two different astral characters sharing a high surrogate must not look alike.
    ['😀', '😃', 1],
    // p-l-a-i-n -> p-l-a-n-e: two substitutions.
    ['plain', 'plane', 2],
  ])('distance %j -> %j is %d', (a, b, expected) => {
    expect(codePointDistance(a, b)).toBe(expected);
  });

  test('the dynamic-program fallback agrees with fastest-levenshtein', () => {
    for (const [a, b] of [['kitten', 'sitting'], ['', 'abc'], ['flaw', 'lawn'], ['😀x', 'x😀']] as const) {
      expect(dynamicProgramDistance([...a], [...b])).toBe(codePointDistance(a, b));
    }
  });
});

describe('identifiers (CrossCodeEval)', () => {
  test.each([
    ['self.session.get(url, timeout=5)', ['self', 'session', 'get', 'url', 'timeout']],
    ['return None if x is None else foo(x)', ['x', 'foo', 'x']],
    ['flag = True or False', ['flag', 'True', 'False']],
    ['x = "not an id" + name  # comment ids', ['x', 'name']],
    ["y = f'{z}' + rb'raw' + u'\\'q'", ['y']],
    ['value = 1e5 + 0x1F + 3.0j', ['value']],
    ['s = """doc\nstring""" + t', ['s', 't']],
    ['msg = "unclosed\nnext_line', ['msg', 'next_line']],
    ['données = naïve', ['données', 'naïve']],
    ['', []],
    ['return"x"', []],
  ])('%j -> %j', (code, expected) => {
    expect(extractIdentifiers(code)).toEqual(expected);
  });

  test('comments and strings become one space each', () => {
    expect(stripStringsAndComments('a = "b" # c\nd')).toBe('a =    \nd');
  });

  test.each([
    // Hand-computed: pred {foo, x}, target {foo, y}: TP 1, FP 1, FN 1 -> F1 2/4.
    ['foo(x)', 'foo(y)', { exact: false, precision: 0.5, recall: 0.5, f1: 0.5 }],
    ['foo(x)', 'foo(x)', { exact: true, precision: 1, recall: 1, f1: 1 }],
    // Sets for F1, sequences for EM: same set, different order.
    ['f(a, b)', 'f(b, a)', { exact: false, precision: 1, recall: 1, f1: 1 }],
    // Repetition: sequences differ, sets are equal.
    ['g(a, a)', 'g(a)', { exact: false, precision: 1, recall: 1, f1: 1 }],
    ['x', '', { exact: false, precision: 0, recall: 0, f1: 0 }],
    ['', 'x', { exact: false, precision: 0, recall: 0, f1: 0 }],
    ['', '', { exact: true, precision: 1, recall: 1, f1: 1 }],
    ['1 + 2', '"s"', { exact: true, precision: 1, recall: 1, f1: 1 }],
    // pred {a, b, c}, target {a}: P 1/3, R 1, F1 2/(2+2) = 0.5.
    ['a + b + c', 'a', { exact: false, precision: 1 / 3, recall: 1, f1: 0.5 }],
  ])('%j vs %j', (prediction, target, expected) => {
    const match = identifierMatch(prediction, target);
    expect(match.exact).toBe(expected.exact);
    expect(match.precision).toBeCloseTo(expected.precision, 12);
    expect(match.recall).toBeCloseTo(expected.recall, 12);
    expect(match.f1).toBeCloseTo(expected.f1, 12);
  });
});

test('scoreCompletion puts the four together', () => {
  expect(scoreCompletion(' foo(x)\n', 'foo(x)')).toEqual({ em: 1, es: 100, idEm: 1, idF1: 1 });
  const partial = scoreCompletion('foo(x)', 'foo(y)');
  expect(partial.em).toBe(0);
  expect(partial.es).toBeCloseTo((1 - 1 / 6) * 100, 10);
  expect(partial.idF1).toBeCloseTo(0.5, 12);
});

describe('identifiers in other languages', () => {
  test.each([
    ['store.go', 'value, err := s.Lookup("key") // the value', ['value', 'err', 's', 'Lookup']],
    ['main.rs', 'let client: Client = connect("localhost", 8080); /* done */', ['client', 'Client', 'connect']],
    ['cart.ts', 'return formatPrice(`${cents}`, \'EUR\'); // total', ['formatPrice']],
  ])('%s: %s', (relPath, code, expected) => {
    expect(extractIdentifiers(code, languageOfPath(relPath))).toEqual(expected);
  });

  test('a Python file keeps CrossCodeEval\'s rules; another language uses its own', () => {
    expect(scoreCompletion('x = f(a)  # note', 'x = f(a)', 'm.py').idEm).toBe(1);
    expect(scoreCompletion('func f() {', 'func g() {', 'a.go').idF1).toBe(0);
    expect(scoreCompletion('let x = 1; // y', 'let x = 1;', 'a.rs').idEm).toBe(1);
  });
});
