import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { detachedCopy } from './strings.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Live heap growth (bytes) while `keep` holds what `make` returns for 200 distinct 200 KB texts. */
function retainedBy(make: (document: string) => string): number {
  collect();
  const before = process.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < 200; i++) {
    const document = `${i}:`.padEnd(200_000, 'x\n');
    kept.push(make(document.slice(1_000, 1_080)));
  }
  collect();
  const grown = process.memoryUsage().heapUsed - before;
  expect(kept).toHaveLength(200);
  return grown;
}

describe('detachedCopy', () => {
  it('returns an equal string', () => {
    for (const text of ['', 'a', 'def f(x):\n', 'ünïcode line with more than thirteen chars']) expect(detachedCopy(text)).toBe(text);
  });

  it('keeps only its own characters alive, where a plain slice keeps its whole document', () => {
    const plain = retainedBy((line) => line);
    const detached = retainedBy(detachedCopy);
    expect(plain).toBeGreaterThan(20_000_000); // 200 documents of 200 KB: the slices hold them
    expect(detached).toBeLessThan(2_000_000);
  });
});
