import { describe, expect, test } from 'vitest';
import { findTextStop } from './stopRules.js';

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
    expect(findTextStop(text, { singleLine, stopStrings })).toEqual(expected);
  });
});
