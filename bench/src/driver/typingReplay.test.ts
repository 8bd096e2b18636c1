import { expect, test } from 'vitest';
import { advance, keystrokesOf } from './typingReplay.js';

test.each([
  ['return value', 12, ['r', 'e', 't', 'u', 'r', 'n']],
  ['return value', 3, ['r', 'e', 't']],
  ['ab', 12, ['a']],
  ['a', 12, []],
  ['', 12, []],
  // One keystroke per code point: the emoji is one key and is never split into surrogates.
  ['😀😀x😀', 12, ['😀', '😀']],
])('keystrokesOf(%j, %d)', (target, max, expected) => {
  expect(keystrokesOf(target, max)).toEqual(expected);
});

test('the cursor advances in UTF-16 units and moves to the next line on a newline', () => {
  expect(advance({ line: 3, character: 4 }, 'x')).toEqual({ line: 3, character: 5 });
  expect(advance({ line: 3, character: 4 }, '😀')).toEqual({ line: 3, character: 6 });
  expect(advance({ line: 3, character: 4 }, '\n')).toEqual({ line: 4, character: 0 });
});
