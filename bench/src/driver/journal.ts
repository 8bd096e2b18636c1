/**
 * The run journal: every task result appended to `journal.jsonl` in the report folder the moment
 * it is scored, so a run of hours that is interrupted (a session ends, the machine is taken back)
 * keeps what it measured. `--resume` reads it back and drives only the (arm, task) pairs missing.
 *
 * The first line names the run (model, tasks, arms, settings); a journal of another run is
 * refused rather than mixed in, since pairing results of different runs would be meaningless.
 * A last line cut off mid-write is ignored: that task simply runs again.
 *
 * A run names its model and adapter by content (`served`, servedFiles.ts), not by the flags that
 * named them. A journal written before runs did so names them by path; such a journal is compared
 * with the run's identity of that time (`legacyRun`: the paths, no `served`), so it still resumes.
 *
 * `--reuse DIR` borrows from another run's journal the arms both runs share, when the two differ
 * only in which policies ran (and t_c, which then limits the loan to the policies that never read
 * it): a dev bench of `none,full,reposhapley` need not measure again the `none` and `full` a run
 * of `none,full,auto` measured on the same tasks, model and settings.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { armName, type Arm, type ArmName, type TaskResult } from './results.js';

/** What makes two runs the same run: everything that changes which tasks run and how. */
export type RunIdentity = Record<string, unknown>;

/** The journal's first line. */
interface JournalHeader {
  journal: 'reposhapley-bench';
  run: RunIdentity;
}

/** Results already measured, by (arm, task id). */
export type FinishedResults = ReadonlyMap<string, TaskResult>;

export const JOURNAL_FILE = 'journal.jsonl';

/** The identity key holding the content hashes of the files a run serves (servedFiles.ts). */
export const SERVED_KEY = 'served';

/** The key of one (arm, task) pair. */
export function resultKey(arm: ArmName, taskId: string): string {
  return `${arm}\u0000${taskId}`;
}

/** Appends results to a journal; construct with `RunJournal.open`. */
export class RunJournal {
  private constructor(readonly file: string) {}

  /**
   * Opens the journal in `dir`. With `resume`, an existing journal must name the same run and its
   * results are returned; without it, an existing journal is an error (a resumable run would be
   * overwritten by accident otherwise).
   */
  static open(dir: string, run: RunIdentity, resume: boolean, legacyRun?: RunIdentity): { journal: RunJournal; finished: FinishedResults } {
    const file = path.join(dir, JOURNAL_FILE);
    mkdirSync(dir, { recursive: true });
    if (!existsSync(file)) {
      appendFileSync(file, `${JSON.stringify({ journal: 'reposhapley-bench', run } satisfies JournalHeader)}\n`);
      return { journal: new RunJournal(file), finished: new Map() };
    }
    if (!resume) {
      throw new JournalError(`${file} exists: pass --resume to continue that run, or another --out for a new one`);
    }
    return { journal: new RunJournal(file), finished: readJournal(file, run, legacyRun) };
  }

  /** Records one result; synchronous so that a kill right after loses nothing already scored. */
  append(result: TaskResult): void {
    appendFileSync(this.file, `${JSON.stringify(result)}\n`);
  }
}

/** Policies whose completions never read t_c: runs that differ only in t_c measured them alike. */
const THRESHOLD_FREE_POLICIES = new Set(['none', 'full']);

/** What a run may differ in from the run it borrows results from. */
const BORROWABLE_DIFFERENCES = new Set(['policies', 'needThreshold']);

/**
 * The results of the run journaled in `dir` for the arms of `arms` it also ran, when that run is
 * this one but for its policies (and t_c). Anything else that differs refuses the loan: the
 * results would not pair.
 */
export function borrowResults(dir: string, run: RunIdentity, arms: readonly Arm[], legacyRun?: RunIdentity): TaskResult[] {
  const file = path.join(dir, JOURNAL_FILE);
  if (!existsSync(file)) throw new JournalError(`${file} does not exist: --reuse names the report folder of a journaled run`);
  const { differing, results } = compareJournal(file, run, legacyRun);
  const blocking = differing.filter((key) => !BORROWABLE_DIFFERENCES.has(key));
  if (blocking.length > 0) {
    throw new JournalError(`${file} is another run (it differs in ${blocking.join(', ')}): only a run that differs in its policies or t_c lends results`);
  }
  const sameThreshold = !differing.includes('needThreshold');
  const wanted = new Set(arms.filter((arm) => sameThreshold || THRESHOLD_FREE_POLICIES.has(arm.policy)).map(armName));
  // A copy names the run that measured it; a copy of a copy keeps the first name.
  return [...results.values()].filter((result) => wanted.has(result.policy))
    .map((result) => ({ ...result, reusedFrom: result.reusedFrom ?? path.resolve(dir) }));
}

/**
 * Where the results a journal holds came from: measured by the interrupted run itself (resumed),
 * or copied by `--reuse` from other runs (each named once), so a resumed run's report says both.
 */
export function journalOrigins(finished: FinishedResults): { resumed: number; reused: number; sources: string[] } {
  const copies = [...finished.values()].filter((result) => result.reusedFrom !== undefined);
  return { resumed: finished.size - copies.length, reused: copies.length, sources: [...new Set(copies.map((r) => r.reusedFrom!))] };
}

/** A journal that cannot be used for this run; the message says what to do. */
export class JournalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JournalError';
  }
}

/** The results of a journal written by the same run. */
function readJournal(file: string, run: RunIdentity, legacyRun?: RunIdentity): Map<string, TaskResult> {
  const { differing, results } = compareJournal(file, run, legacyRun);
  if (differing.length > 0) {
    throw new JournalError(`${file} belongs to another run (it differs in ${differing.join(', ')}): resume with the same flags, or use another --out`);
  }
  return results;
}

/**
 * A journal's measured results, and the keys in which its run differs from `run` (undefined
 * fields of `run` compare as JSON drops them). A journal without `served` was written before runs
 * recorded it, and is compared with `legacyRun` when there is one.
 */
function compareJournal(file: string, run: RunIdentity, legacyRun?: RunIdentity): { differing: string[]; results: Map<string, TaskResult> } {
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '');
  const header = parseLine(lines[0]) as Partial<JournalHeader> | undefined;
  if (header?.journal !== 'reposhapley-bench') throw new JournalError(`${file} is not a bench journal`);
  const recorded = header.run ?? {};
  const expected = legacyRun && !(SERVED_KEY in recorded) ? legacyRun : run;
  const differing = differingKeys(recorded, parseLine(JSON.stringify(expected)) as RunIdentity);
  return { differing, results: readResults(lines) };
}

/** The measured results of a journal's lines after its header, by (arm, task). */
function readResults(lines: readonly string[]): Map<string, TaskResult> {
  const finished = new Map<string, TaskResult>();
  for (const line of lines.slice(1)) {
    const result = parseLine(line) as TaskResult | undefined;
    // A harness error (a server that died with the interrupted run) is not a measurement: run it again.
    if (result?.taskId === undefined || result.policy === undefined || result.outcome === 'error') continue;
    finished.set(resultKey(result.policy, result.taskId), result);
  }
  return finished;
}

/** The numbers a result leaves NaN when a request never answered; JSON writes them as null. */
const NAN_WHEN_NULL = new Set(['latencyMs', 'firstMs', 'settledLatencyMs']);

function parseLine(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line, (key, v: unknown) => (v === null && NAN_WHEN_NULL.has(key) ? Number.NaN : v));
  } catch {
    return undefined; // a line cut off by a kill: its task runs again
  }
}

function differingKeys(a: RunIdentity, b: RunIdentity): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((key) => !isDeepStrictEqual(a[key], b[key])).sort();
}
