import { describe, expect, test } from 'vitest';
import { findRepetition, findTextStop, REPEAT_COPIES, REPEAT_MIN_CHARS } from './stopRules.js';

describe('findTextStop', () => {
  test.each([
    ['no newline yet', 'foo(bar', true, [], undefined],
    ['newline after content', 'foo()\n    bar', true, [], { index: 5, reason: 'newline' }],
    ['leading newlines are kept', '\n\n    return x\n', true, [], { index: 14, reason: 'newline' }],
    ['only whitespace so far', '\n   \n  ', true, [], undefined],
    ['CRLF drops the CR', 'x = 1\r\ny', true, [], { index: 5, reason: 'newline' }],
    ['multi-line mode ignores newlines', 'a\nb', false, [], undefined],
    ['stop string', 'a = 1\ndef f', false, ['\ndef'], { index: 5, reason: 'stop-string' }],
    ['earliest stop wins', 'ab)cd\nef', true, ['\nef', ')'], { index: 2, reason: 'stop-string' }],
    ['newline before a stop string', 'ab\ncd)', true, [')'], { index: 2, reason: 'newline' }],
    ['empty stop strings are ignored', 'abc', false, [''], undefined],
  ])('%s', (_name, text, singleLine, stopStrings, expected) => {
    expect(findTextStop(text, { singleLine, stopStrings, repetitionStop: false })).toEqual(expected);
  });

  test('single-line completions stop at a loop by default, multi-line ones only when asked', () => {
    const loop = 'f(a, 0), f(a, 0), f(a, 0), f(a';
    expect(findTextStop(loop, { singleLine: true })).toEqual({ index: 'f(a, 0), '.length, reason: 'repetition' });
    expect(findTextStop(loop, { singleLine: false })).toBeUndefined();
    expect(findTextStop(loop, { singleLine: false, repetitionStop: true })?.reason).toBe('repetition');
    expect(findTextStop(loop, { singleLine: true, repetitionStop: false })).toBeUndefined();
  });

  test('a newline before the loop ends the line first', () => {
    expect(findTextStop('x = 1\nab, ab, ab, ab, ab, ab, ', { singleLine: true })).toEqual({ index: 5, reason: 'newline' });
  });
});

describe('findRepetition', () => {
  test.each([
    ['the README loop keeps one copy', 'encode(Point(x, 0), Point(x, 0), Point(x, 0), Point(', 'encode(Point(x, 0), '],
    ['a loop of lines', 'return x\n    return x\n    return x\n    ret', 'return x\n    '],
    ['the earliest loop wins', 'g(h, h, h, h, h, h, h, h), k, k, k, k, k, k, k', 'g(h, h, '],
  ])('%s', (_name, text, kept) => {
    const stop = findRepetition(text);
    expect(stop?.reason).toBe('repetition');
    expect(text.slice(0, stop!.index)).toBe(kept);
  });

  test.each([
    ['two copies are code', 'Point(x, 0), Point(x, 0)'],
    ['a run of one character is a heading underline', '=========================='],
    ['a short loop is code', '0, 0, 0, 0'],
    ['ordinary code', 'return self._cache.get(key, default) if key in self._cache else default'],
    ['empty', ''],
  ])('%s: no stop', (_name, text) => {
    expect(findRepetition(text)).toBeUndefined();
  });

  test('the threshold: exactly REPEAT_COPIES copies of REPEAT_MIN_CHARS characters in all', () => {
    const unit = 'ab'.repeat(REPEAT_MIN_CHARS / REPEAT_COPIES / 2);
    expect(findRepetition(unit.repeat(REPEAT_COPIES))?.index).toBe(unit.length);
    expect(findRepetition(unit.repeat(REPEAT_COPIES - 1))).toBeUndefined();
  });
});

test('long runs and long loop-free text stay cheap (no cubic scan)', () => {
  // Correctness only: a run of one character is no loop, however long, and neither is a
  // long text without one; the cost is measured nowhere in tests (house rule).
  expect(findRepetition('x' + ' '.repeat(4000))).toBeUndefined();
  expect(findRepetition(Array.from({ length: 400 }, (_, i) => `v${i}`).join(' '))).toBeUndefined();
});
