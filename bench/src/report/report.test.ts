import { expect, test } from 'vitest';
import type { TaskResult } from '../driver/results.js';
import { summarize } from '../metrics/summary.js';
import { scoreCompletion } from '../metrics/textMetrics.js';
import { replaceSection, SECTION_END, SECTION_START } from './docsSection.js';
import { markdownTable, signedInterval, withInterval } from './format.js';
import { differenceTable, evidenceTable, qualityTable } from './markdown.js';
import { escapeXml, niceMax, renderChart } from './svgChart.js';

const results: TaskResult[] = ['none', 'full'].flatMap((policy) => ['a', 'b'].map((id, i): TaskResult => ({
  taskId: id, type: i === 0 ? 'line' : 'block', repository: 'r', policy: policy as 'none' | 'full',
  completion: policy === 'full' ? 'x' : '', target: 'x', outcome: 'ok', latencyMs: 50 + i * 100, cycleMs: 60,
  scores: scoreCompletion(policy === 'full' ? 'x' : '', 'x'),
})));
const summary = summarize(results, ['none', 'full'], ['line', 'block'], { resamples: 100 });

test('docs section: replaced between markers, appended when absent, the rest kept', () => {
  const doc = `# Benchmarks\n\n## Server\nkeep me\n\n${SECTION_START}\nold table\n${SECTION_END}\n\ntrailer\n`;
  const updated = replaceSection(doc, 'new table');
  expect(updated).toBe(`# Benchmarks\n\n## Server\nkeep me\n\n${SECTION_START}\nnew table\n${SECTION_END}\n\ntrailer\n`);
  expect(replaceSection('# Benchmarks\n', 'first')).toBe(`# Benchmarks\n\n${SECTION_START}\nfirst\n${SECTION_END}\n`);
});

test('formatting', () => {
  expect(withInterval({ mean: 12.345, low: 10, high: 15.05 })).toBe('12.3 [10.0, 15.1]');
  expect(withInterval({ mean: Number.NaN, low: 0, high: 0 })).toBe('–');
  expect(signedInterval({ mean: 2, low: 0.5, high: 3 })).toBe('+2.0 [+0.5, +3.0] *');
  expect(signedInterval({ mean: -1, low: -2, high: 0.5 })).toBe('-1.0 [-2.0, +0.5]');
  expect(signedInterval({ mean: -0.01, low: -0.04, high: 0.1 })).toBe('0.0 [0.0, +0.1]');
  expect(markdownTable(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
});

test('tables have a row per policy and type and per comparison', () => {
  const quality = qualityTable(summary).split('\n');
  expect(quality).toHaveLength(2 + 3 * 2); // header, rule, (line, block, all) x (none, full)
  expect(quality[2]).toMatch(/^\| line \| none \| 1 \| 0\.0 \[0\.0, 0\.0\] \| 0\.0 /);
  expect(quality[3]).toMatch(/^\| line \| full \| 1 \| 100\.0 \[100\.0, 100\.0\] \| 100\.0 /);
  const differences = differenceTable(summary).split('\n');
  expect(differences).toHaveLength(2 + 3);
  expect(differences[4]).toBe('| all | full − none | 2 | +100.0 [+100.0, +100.0] * | +100.0 [+100.0, +100.0] * |');
});

test('chart: a well-formed SVG with a bar per policy and type and escaped labels', () => {
  const svg = renderChart(summary, results, ['none', 'full'], ['line', 'block', 'all']);
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  // Bars with a <title>: 2 metrics x 3 groups x 2 policies.
  expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(12);
  expect(svg).not.toMatch(/NaN|undefined/);
  expect(escapeXml('a<b & "c"')).toBe('a&lt;b &amp; &quot;c&quot;');
});

test.each([[0, 1], [0.3, 0.5], [7, 10], [10, 10], [101, 200], [4_321, 5_000], [Number.NaN, 1]])('niceMax(%d) = %d', (value, expected) => {
  expect(niceMax(value)).toBe(expected);
});

test('evidence table: API tasks split by whether the callee\'s definition reached the prompt', () => {
  const api = (id: string, policy: 'none' | 'full', inPrompt: boolean, hit: boolean): TaskResult => ({
    taskId: id, type: 'api', repository: 'r', policy, completion: hit ? 'f(x)' : 'g', target: 'f(x)', outcome: 'ok',
    latencyMs: 10, cycleMs: 10, scores: scoreCompletion(hit ? 'f(x)' : 'g', 'f(x)'),
    evidence: { found: inPrompt || (policy === 'full' && id === 'c'), inPrompt },
  });
  const apiResults = [
    api('a', 'full', true, true), api('b', 'full', true, false), api('c', 'full', false, false), api('d', 'full', false, true),
    api('a', 'none', false, false), api('b', 'none', false, false), api('c', 'none', false, false), api('d', 'none', false, true),
  ];
  const apiSummary = summarize(apiResults, ['none', 'full'], ['api'], { resamples: 10 });
  const full = apiSummary.groups.find((g) => g.policy === 'full' && g.type === 'api')!;
  expect(full.evidence).toEqual({
    tasks: 4, foundRate: 0.75, inPromptRate: 0.5, emInPrompt: 50, emNotInPrompt: 50, keepAuc: Number.NaN, keepAucTasks: 0, keepAucPairs: 0,
  });
  const rows = evidenceTable(apiSummary)!.split('\n');
  expect(rows).toHaveLength(2 + 2); // header, rule, (api) x (none, full); the 'all' group is left out
  expect(rows[2]).toBe('| api | none | 4 | 0 % | 0 % | – | 25.0 | – |');
  expect(rows[3]).toBe('| api | full | 4 | 75 % | 50 % | 50.0 | 50.0 | – |');
  expect(evidenceTable(summary)).toBeUndefined();
});

test('evidence table: the selection\'s AUC pools the pairs of every task that has them', () => {
  const ranked = (id: string, wins: number, pairs: number): TaskResult => ({
    taskId: id, type: 'api', repository: 'r', policy: 'reposhapley', completion: 'g', target: 'f(x)', outcome: 'ok',
    latencyMs: 10, cycleMs: 10, scores: scoreCompletion('g', 'f(x)'),
    evidence: { found: true, inPrompt: true, keepRanking: { wins, pairs } },
  });
  const results = [ranked('a', 2, 2), ranked('b', 0, 2), ranked('c', 1, 4), { ...ranked('d', 0, 1), evidence: { found: false, inPrompt: false } }];
  const group = summarize(results, ['reposhapley'], ['api'], { resamples: 10 }).groups.find((g) => g.type === 'api')!;
  expect(group.evidence).toMatchObject({ keepAuc: 3 / 8, keepAucTasks: 3, keepAucPairs: 8 });
  expect(evidenceTable(summarize(results, ['reposhapley'], ['api'], { resamples: 10 }))).toContain('| 0.38 (3 tasks, 8 pairs) |');
});
