import { describe, expect, test } from 'vitest';
import { hammingDistance, NearDuplicateIndex, simhash, type Fingerprint } from './simhash.js';
import { normalizedLines } from './textFilters.js';

const module = (name: string, extra = '') => normalizedLines(`
import os
${extra}
class ${name}Handler(object):
    """Handles ${name} requests and keeps a small cache of results."""

    def __init__(self, root, timeout=30):
        self.root = root
        self.timeout = timeout
        self.cache = {}

    def lookup(self, key):
        if key in self.cache:
            return self.cache[key]
        value = os.path.join(self.root, key)
        self.cache[key] = value
        return value

    def clear(self):
        self.cache.clear()
`);

const unrelated = normalizedLines(`
def parse_header(line):
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()

async def fetch_all(urls, session):
    results = []
    for url in urls:
        response = await session.get(url)
        results.append(await response.json())
    return results
`);

describe('simhash', () => {
  test('is deterministic', () => {
    expect(simhash(module('User'))).toEqual(simhash(module('User')));
  });

  test('a one-line edit stays close; unrelated code is far', () => {
    const base = simhash(module('User'));
    expect(hammingDistance(base, simhash(module('User', 'import sys')))).toBeLessThanOrEqual(10);
    expect(hammingDistance(base, simhash(unrelated))).toBeGreaterThan(10);
  });

  test('repeated boilerplate does not make large unrelated files collide', () => {
    // Frequency weighting made doctest.py and collections/__init__.py identical; distinct shingles do not.
    const boiler = Array.from({ length: 400 }, () => 'self.x = self.y(a, b)');
    const a = simhash([...boiler, ...module('Alpha')]);
    const b = simhash([...boiler, ...unrelated]);
    expect(hammingDistance(a, b)).toBeGreaterThan(3);
  });
});

describe('hammingDistance', () => {
  test.each<[Fingerprint, Fingerprint, number]>([
    [[0, 0], [0, 0], 0],
    [[0xffffffff, 0], [0, 0], 32],
    [[1, 0x80000000], [0, 0], 2],
    [[0xffffffff, 0xffffffff], [0, 0], 64],
  ])('%j vs %j is %i', (a, b, d) => expect(hammingDistance(a, b)).toBe(d));
});

describe('NearDuplicateIndex', () => {
  test.each([0, 1, 2, 3])('finds a fingerprint %i bits away, in any band', (bits) => {
    const index = new NearDuplicateIndex<string>(3);
    const base: Fingerprint = [0x12345678, 0x9abcdef0];
    index.add(base, 'base');
    // Flip bits spread over both halves so that several bands differ.
    const flips = [0, 20, 40, 60].slice(0, bits);
    let [high, low] = base;
    for (const bit of flips) {
      if (bit < 32) high = (high ^ (1 << bit)) >>> 0;
      else low = (low ^ (1 << (bit - 32))) >>> 0;
    }
    expect(index.find([high, low])).toBe('base');
  });

  test('misses a fingerprint 4 bits away', () => {
    const index = new NearDuplicateIndex<string>(3);
    index.add([0, 0], 'zero');
    expect(index.find([0b1111, 0])).toBeUndefined();
    expect(index.find([0b111, 0])).toBe('zero');
  });

  test('returns the first added match', () => {
    const index = new NearDuplicateIndex<string>(3);
    index.add([0, 0], 'first');
    index.add([1, 0], 'second');
    expect(index.find([1, 0])).toBe('first');
    expect(index.size).toBe(2);
  });
});
