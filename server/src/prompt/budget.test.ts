import { expect, test } from 'vitest';
import { mulberry32 } from '../util/hashing.js';
import { contextSizeFor, fitBudgetsToContext, fitPrefix, fitSuffix } from './budget.js';
import { LineTokenizer, splitKeepingNewlines } from './lineTokenizer.js';

// One token per character: budgets are easy to reason about.
const tokenizer = new LineTokenizer({ tokenize: (text) => [...text].map((c) => c.codePointAt(0)!) });

/**
 * The definition: whole lines from the cursor backwards while they fit. A last line longer than
 * the budget is cut: its last `budget` tokens (undefined here; checked on ids).
 */
function referencePrefix(prefix: string, budget: number): string | undefined {
  const pieces = splitKeepingNewlines(prefix);
  let kept = '';
  for (let i = pieces.length - 1; i >= 0; i--) {
    if (kept.length + pieces[i]!.length > budget) return i === pieces.length - 1 ? undefined : kept;
    kept = pieces[i]! + kept;
  }
  return kept;
}

test('fitPrefix keeps the whole lines nearest the cursor that fit', () => {
  expect(fitPrefix('a\nbb\nccc', 6, tokenizer).text).toBe('bb\nccc');
  expect(fitPrefix('a\nbb\n', 5, tokenizer).text).toBe('a\nbb\n');
  expect(fitPrefix('a\nbb\n', 4, tokenizer).text).toBe('bb\n');
  expect(fitPrefix('\n\n', 1, tokenizer).text).toBe('\n');
  expect(fitPrefix('', 10, tokenizer)).toEqual({ text: '', ids: [] });
  expect(fitPrefix('abcdef', 3, tokenizer).ids).toEqual(tokenizer.text('def'));
});

test('fitPrefix agrees with the line-by-line definition on random text', () => {
  const random = mulberry32(7);
  const alphabet = ['a', 'b', '\n', '\n', ' '];
  for (let round = 0; round < 2_000; round++) {
    const length = Math.floor(random() * 30);
    const prefix = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const budget = Math.floor(random() * 20);
    const fitted = fitPrefix(prefix, budget, tokenizer);
    const expected = referencePrefix(prefix, budget);
    const lastLine = prefix.slice(prefix.lastIndexOf('\n', prefix.length - 2) + 1);
    if (expected === undefined) expect(fitted.ids).toEqual(budget === 0 ? [] : tokenizer.text(lastLine).slice(-budget));
    else {
      expect(fitted.text, JSON.stringify({ prefix, budget })).toBe(expected);
      expect(fitted.ids).toEqual(tokenizer.text(fitted.text));
    }
  }
});

test('fitSuffix keeps the first whole lines that fit', () => {
  expect(fitSuffix('ab\ncd\nef', 6, tokenizer).text).toBe('ab\ncd\n');
});

test('the context for the budgets holds them whole, in steps of 512 so that small changes keep the loaded model', () => {
  const defaults = { prefixTokens: 384, suffixTokens: 64, chunkTokens: 384 };
  expect(contextSizeFor(defaults, 64, 10)).toBe(1536);
  expect(contextSizeFor({ ...defaults, prefixTokens: 400 }, 64, 10)).toBe(1536);
  const large = { prefixTokens: 1024, suffixTokens: 256, chunkTokens: 1024 };
  expect(contextSizeFor(large, 64, 10)).toBe(2560);
  // Budgets fitted to that context are the budgets themselves: nothing is cut.
  for (const budgets of [defaults, large]) {
    for (const [maxTokens, topK] of [[64, 10], [1024, 10], [1, 0]] as const) {
      expect(fitBudgetsToContext(budgets, contextSizeFor(budgets, maxTokens, topK), maxTokens, topK)).toEqual(budgets);
    }
  }
});
