import { expect, test } from 'vitest';
import { CACHE_PREFIX_CHARS } from './cache.js';
import { TypedThrough } from './typedThrough.js';

const shown = { text: 'perimeter())', traceId: 't1' };
const context = { prefix: 'print(square(2.0).', suffix: '\nx = 1\n' };

test('typing the ghost text answers with the rest of it; anything else does not', () => {
  const reuse = new TypedThrough();
  reuse.remember('a.py', context, 'k', shown);
  const after = (typed: string, suffix = context.suffix, key = 'k', uri = 'a.py') => reuse.match(uri, { prefix: context.prefix + typed, suffix }, key);
  expect(after('p')).toEqual({ text: 'erimeter())', traceId: 't1' });
  expect(after('perimeter(')).toEqual({ text: '))', traceId: 't1' });
  expect(after('')).toBeUndefined(); // the same context: the cache's job
  expect(after('perimeter())')).toBeUndefined(); // all typed: nothing left to offer
  expect(after('x')).toBeUndefined(); // typed something else
  expect(after('p', 'changed')).toBeUndefined(); // the text after the cursor changed
  expect(after('p', context.suffix, 'other settings')).toBeUndefined();
  expect(after('p', context.suffix, 'k', 'b.py')).toBeUndefined();
  reuse.forget('a.py');
  expect(after('p')).toBeUndefined();
});

test('a context bounded at the front (a long file) still matches', () => {
  const reuse = new TypedThrough();
  const long = { prefix: 'y'.repeat(CACHE_PREFIX_CHARS - 3) + 'ab.', suffix: '' };
  reuse.remember('a.py', long, 'k', { text: 'method()', traceId: 't2' });
  const typed = (long.prefix + 'meth').slice(-CACHE_PREFIX_CHARS);
  expect(reuse.match('a.py', { prefix: typed, suffix: '' }, 'k')).toEqual({ text: 'od()', traceId: 't2' });
});
