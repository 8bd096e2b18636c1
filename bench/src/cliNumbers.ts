/**
 * Number and list parsers for the benchmark and model CLIs' commander options. A bad value is reported by commander
 * as `error: option '--edits <n>' argument 'abc' is invalid. expected ...` with exit code 1,
 * instead of silently falling back to the default.
 */
import { InvalidArgumentError } from 'commander';
import type { PromptBudgets } from '../../shared/settings.js';

function parsed(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value);
}

/** A whole number >= 0 (a seed, a count that may be zero). */
export function nonNegativeInt(value: string): number {
  const n = parsed(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got ${value}`);
  return n;
}

/** A whole number >= 1 (a count, a thread count). */
export function positiveInt(value: string): number {
  const n = parsed(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got ${value}`);
  return n;
}

/** A finite number > 0 (a rate, a speed factor). */
export function positiveNumber(value: string): number {
  const n = parsed(value);
  if (!(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError(`expected a number greater than 0, got ${value}`);
  return n;
}

/** A finite number >= 0 (a duration). */
export function nonNegativeNumber(value: string): number {
  const n = parsed(value);
  if (!(Number.isFinite(n) && n >= 0)) throw new InvalidArgumentError(`expected a number of at least 0, got ${value}`);
  return n;
}

/** `1,2,4` -> [1, 2, 4]: a comma list, each item parsed by `item`. */
export function numberList(item: (value: string) => number) {
  return (value: string): number[] => {
    const items = value.split(',');
    try {
      return items.map((part) => item(part.trim()));
    } catch (error) {
      if (error instanceof InvalidArgumentError) throw new InvalidArgumentError(`${error.message} in the list ${value}`);
      throw error;
    }
  };
}

/** A comma list whose items must be in `allowed`, each once. */
export function listOf<T extends string>(allowed: readonly T[], what: string) {
  return (value: string): T[] => {
    const items = value.split(',').map((item) => item.trim()).filter(Boolean);
    const unknown = items.filter((item) => !allowed.includes(item as T));
    if (unknown.length > 0 || items.length === 0) throw new InvalidArgumentError(`${what} must be from ${allowed.join(', ')}; got ${value}`);
    return [...new Set(items)] as T[];
  };
}

/** `512,128,512` -> the prefix, suffix and chunk token budgets (three whole numbers >= 0). */
export function promptBudgets(value: string): PromptBudgets {
  const values = numberList(nonNegativeInt)(value);
  if (values.length !== 3) throw new InvalidArgumentError(`expected three numbers (prefix,suffix,chunks), got ${values.length}`);
  const [prefixTokens, suffixTokens, chunkTokens] = values as [number, number, number];
  return { prefixTokens, suffixTokens, chunkTokens };
}
