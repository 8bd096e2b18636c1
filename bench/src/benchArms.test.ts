import { expect, test } from 'vitest';
import { armName } from './driver/results.js';
import { benchArms } from './runBench.js';

test('without layouts an arm is a policy; with them every policy runs under each layout, layout-major', () => {
  expect(benchArms({ policies: ['none', 'full'] }).map(armName)).toEqual(['none', 'full']);
  expect(benchArms({ policies: ['none', 'full'], layouts: ['repo-fim', 'repo-fim-line'] }).map(armName))
    .toEqual(['none@repo-fim', 'full@repo-fim', 'none@repo-fim-line', 'full@repo-fim-line']);
});
