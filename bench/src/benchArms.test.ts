import { expect, test } from 'vitest';
import { armName } from './driver/results.js';
import { benchArms } from './runBench.js';

test('without layouts an arm is a policy; with them every policy runs under each layout, layout-major', () => {
  expect(benchArms({ policies: ['none', 'full'] }).map(armName)).toEqual(['none', 'full']);
  expect(benchArms({ policies: ['none', 'full'], layouts: ['repo-fim', 'repo-fim-line'] }).map(armName))
    .toEqual(['none@repo-fim', 'full@repo-fim', 'none@repo-fim-line', 'full@repo-fim-line']);
});

test('several budget sets make arms of their own, inside each layout; one set is a plain server setting', () => {
  const small = { prefixTokens: 384, suffixTokens: 16, chunkTokens: 384 };
  const large = { prefixTokens: 1024, suffixTokens: 256, chunkTokens: 1024 };
  expect(benchArms({ policies: ['full'], budgetSets: [small, large] }).map(armName)).toEqual(['full@384-16-384', 'full@1024-256-1024']);
  expect(benchArms({ policies: ['none', 'full'], layouts: ['repo-fim'], budgetSets: [small, large] }).map(armName))
    .toEqual(['none@repo-fim@384-16-384', 'full@repo-fim@384-16-384', 'none@repo-fim@1024-256-1024', 'full@repo-fim@1024-256-1024']);
  expect(benchArms({ policies: ['full'], budgetSets: [large] })[0]).toEqual({ policy: 'full', budgets: large });
});
