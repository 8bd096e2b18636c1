/**
 * Random JSON values for parameters: the odd numbers, strings and shapes a buggy or hostile
 * client could send, and mutations of well-formed parameter objects.
 */
import type { Random } from '../random.js';

/** Numbers that break naive position and size handling. */
const ODD_NUMBERS = [
  0, -0, 1, -1, 0.5, -0.5, 2, 7, 255, 65_535, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2,
  -(2 ** 53), 1e21, 1e308, -1e308, 5e-324, 3.000000001,
];

const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'then', 'length', '', 'uri', 'range', 'text'];

/** A random number, weighted toward ones that break code. */
export function oddNumber(random: Random): number {
  return random.chance(0.7) ? random.pick(ODD_NUMBERS) : random.int(1000) - 100;
}

/** A random string: short text, a URI-ish string or a long run. */
export function oddString(random: Random): string {
  return random.weighted<() => string>([
    [5, () => random.text(random.int(12))],
    [2, () => random.pick(['file:///', 'file:', 'untitled:Untitled-1', 'http://example.invalid/x.py', 'file://host/share/x.py', 'file:///%ZZ', 'file:///a%00b.py', '..', '\\\\?\\C:\\x.py'])],
    [1, () => 'x'.repeat(random.between(1_000, 70_000))],
    [1, () => random.pick(['auto', 'none', 'full', 'reposhapley', 'true', 'null', '0', '-1'])],
  ])();
}

/** A random JSON value of at most `depth` levels. */
export function randomJson(random: Random, depth = 3): unknown {
  const leaf = random.weighted<() => unknown>([
    [2, () => null],
    [2, () => random.chance(0.5)],
    [4, () => oddNumber(random)],
    [4, () => oddString(random)],
  ]);
  if (depth <= 0 || random.chance(0.45)) return leaf();
  if (random.chance(0.4)) return Array.from({ length: random.int(5) }, () => randomJson(random, depth - 1));
  const object: Record<string, unknown> = {};
  for (let i = random.int(5); i > 0; i--) {
    const key = random.chance(0.5) ? random.pick(ODD_KEYS) : random.text(random.between(1, 8));
    Object.defineProperty(object, key, { value: randomJson(random, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** Arrays nested `depth` deep (`[[[...]]]`), as JSON text. */
export function deepJsonText(depth: number, open = '[', close = ']'): string {
  return open.repeat(depth) + close.repeat(depth);
}

/**
 * A copy of `value` with one to three leaves (or subtrees) replaced by random values, removed,
 * or retyped. Keeps most of the shape, so handlers get past their first checks.
 */
export function mutate(random: Random, value: unknown): unknown {
  let copy = structuredClone(value);
  for (let n = random.between(1, 3); n > 0; n--) copy = mutateOnce(random, copy);
  return copy;
}

function mutateOnce(random: Random, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || random.chance(0.15)) {
    return random.chance(0.5) ? randomJson(random, 2) : oddNumber(random);
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return randomJson(random, 2);
  const key = random.pick(keys);
  const target = value as Record<string, unknown>;
  if (random.chance(0.2)) {
    delete target[key];
  } else {
    target[key] = mutateOnce(random, target[key]);
  }
  return value;
}
