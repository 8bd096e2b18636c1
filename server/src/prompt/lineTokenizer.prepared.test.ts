/** LineTokenizer.prepared: a tokenizer that only answers what it was given in a batch before. */
import { expect, test } from 'vitest';
import { LineTokenizer, type Tokenizer } from './lineTokenizer.js';
import { fitPrefix } from './budget.js';

/** One id per character, but only for texts that went through tokenizeMany first. */
function remoteLike(): Tokenizer & { batches: string[][] } {
  const known = new Set<string>();
  const ids = (text: string) => [...text].map((c) => c.charCodeAt(0));
  return {
    batches: [],
    tokenize(text) {
      if (!known.has(text)) throw new Error(`not prepared: ${text}`);
      return ids(text);
    },
    async tokenizeMany(texts) {
      this.batches.push([...texts]);
      texts.forEach((t) => known.add(t));
      return texts.map(ids);
    },
  };
}

const prefix = Array.from({ length: 200 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}\n`).join('') + 'cur';

test('builds exactly what a synchronous tokenizer builds, in a batch or two', async () => {
  const remote = remoteLike();
  const sync = new LineTokenizer({ tokenize: (t) => [...t].map((c) => c.charCodeAt(0)) });
  const tokenizer = new LineTokenizer(remote);
  const fitted = await tokenizer.prepared(() => fitPrefix(prefix, 60, tokenizer));
  expect(fitted).toEqual(fitPrefix(prefix, 60, sync));
  // One batch for every line the exact build reads (a line stands in as one token), then exact.
  expect(remote.batches.length).toBe(1);
  // The lines far outside the budget were never sent.
  expect(remote.batches.flat()).not.toContain('line 0 \n');
});

test('a second build with one line changed sends only that line', async () => {
  const remote = remoteLike();
  const tokenizer = new LineTokenizer(remote);
  await tokenizer.prepared(() => fitPrefix(prefix, 60, tokenizer));
  const before = remote.batches.length;
  await tokenizer.prepared(() => fitPrefix(`${prefix}r`, 60, tokenizer));
  expect(remote.batches.slice(before)).toEqual([['curr']]);
});

test('a synchronous tokenizer runs the build once and never batches', async () => {
  let builds = 0;
  const tokenizer = new LineTokenizer({ tokenize: (t) => [t.length] });
  expect(await tokenizer.prepared(() => ++builds && tokenizer.text('a\nbb\n'))).toEqual([2, 3]);
  expect(builds).toBe(1);
});
