import { expect, test } from 'vitest';
import { DecisionCache, type LineRetrieval } from './decisionCache.js';

function retrieval(line: number, linePrefix = 'x = '): LineRetrieval {
  return { linePrefix, candidates: [], packed: [], fileVersions: new Map(), line };
}

test('a line keeps its own retrieval; another line starts without one', () => {
  const cache = new DecisionCache();
  cache.scope('a.py', 10, 'm').rememberRetrieval(retrieval(10));
  expect(cache.scope('a.py', 10, 'm').retrieval()?.line).toBe(10);
  const other = cache.scope('a.py', 12, 'm');
  expect(other.retrieval()).toBeUndefined();
  expect(other.nearbyRetrieval()).toBeUndefined(); // keepCandidatesNearLines 0: retrieve anew
});

test('within nearLines of where they were retrieved, a new line is offered the last candidates', () => {
  const cache = new DecisionCache();
  const first = retrieval(10);
  cache.scope('a.py', 10, 'm', 20).rememberRetrieval(first);
  const near = cache.scope('a.py', 25, 'm', 20);
  expect(near.nearbyRetrieval()).toBe(first);
  // Adopted on line 25 (as the pipeline does), they still count from line 10: no drift line by line.
  near.rememberRetrieval({ ...first, linePrefix: 'y = ' });
  expect(cache.scope('a.py', 31, 'm', 20).nearbyRetrieval()).toBeUndefined();
});

test('nothing is offered across models, documents, or beyond nearLines', () => {
  const cache = new DecisionCache();
  cache.scope('a.py', 10, 'm', 20).rememberRetrieval(retrieval(10));
  expect(cache.scope('a.py', 12, 'other model', 20).nearbyRetrieval()).toBeUndefined();
  cache.scope('a.py', 10, 'm', 20).rememberRetrieval(retrieval(10));
  expect(cache.scope('b.py', 10, 'm', 20).nearbyRetrieval()).toBeUndefined();
  expect(cache.scope('a.py', 40, 'm', 20).nearbyRetrieval()).toBeUndefined();
});
