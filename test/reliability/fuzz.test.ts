/**
 * The stdio fuzz in CI: a fixed seed, 20,000 cases (malformed frames, random LSP parameters,
 * random edits, random bytes and pathological source as buffers and files of every language)
 * against the built server with the tiny model. More on demand: REPOSHAPLEY_FUZZ_CASES=200000 REPOSHAPLEY_FUZZ_SEED=7 npx vitest run
 * test/reliability/fuzz.test.ts, or the CLI (test/reliability/fuzz/fuzzCli.ts) for many seeds.
 */
import { expect, test } from 'vitest';
import { LANGUAGE_IDS } from '../../shared/languages.js';
import { runFuzz } from './fuzz/fuzzRun.js';

const CASES = Number(process.env.REPOSHAPLEY_FUZZ_CASES ?? 20_000);
const SEED = Number(process.env.REPOSHAPLEY_FUZZ_SEED ?? 20_261_129);

/** Case kinds every run of this size must have tried (the generators are weighted to reach each). */
const FAMILIES = ['frame/', 'params/', 'documents/edit', 'documents/open-random', 'documents/disk-file'];

/** Exceptions a handler or the index threw and a guard caught: bad input must be explained, never thrown. */
const THROWN = /unhandled|uncaught|indexing failed|\b(?:Type|Range|Reference|Syntax)Error\b/i;

test(`fuzz seed ${SEED}: ${CASES} cases and the server keeps answering`, async () => {
  const report = await runFuzz({ seed: SEED, cases: CASES });
  const kinds = Object.keys(report.byKind);
  for (const family of FAMILIES) expect(kinds.some((kind) => kind.startsWith(family)), family).toBe(true);
  for (const language of LANGUAGE_IDS) expect(kinds, language).toContain(`documents/open-random/${language}`);
  expect(kinds).toContain('documents/disk-file/project');
  expect(report.cases).toBe(CASES);
  expect(report.probes).toBeGreaterThanOrEqual(Math.floor(CASES / 100));
  expect(report.unanswered).toEqual([]);
  expect(report.requestsAnswered).toBe(report.requestsExpected);
  expect(report.requestsExpected).toBeGreaterThan(CASES / 10);
  expect(report.healthDetail ?? '').toBe('');
  expect(report.healthy).toBe(true);
  expect(report.exitCode).toBe(0);
  expect(Object.keys(report.serverErrors).filter((line) => THROWN.test(line))).toEqual([]);
}, 600_000);
