/** The report's Markdown: the policy × task type table, paired differences, typing, timing. */
import type { HarnessTiming } from '../metrics/harnessTiming.js';
import type { BenchSummary, GroupSummary } from '../metrics/summary.js';
import { markdownTable, num, pct, signedInterval, withInterval } from './format.js';

/** What the report says about how it was made. */
export interface ReportMeta {
  /** The exact command line. */
  command: string;
  startedAt: string;
  wallMs: number;
  model: string;
  seed: number;
  /** The language whose packages the tasks come from (`--language`). */
  language?: string;
  repositories: string[];
  /** e.g. "2 cores, load average 1.9" */
  machine: string;
  typing: boolean;
  /** Results taken from the journal of an interrupted run (`--resume`) rather than measured in this process. */
  resumedResults?: number;
  /** Results copied from another run's journal (`--reuse`): how many, and from where. */
  reusedResults?: string;
}

/** policy × task type: quality with 95 % CIs, latency, context. */
export function qualityTable(summary: BenchSummary): string {
  const header = ['type', 'policy', 'tasks', 'EM % [95 % CI]', 'ES [95 % CI]', 'ID-EM %', 'ID-F1 %',
    'latency p50 / p95 / p99 (ms)', 'prompt tok', 'evaluated tok: all (trigger / selection / prompt / generated)', 'cand.', 'kept', 'NEED',
    'reused tok', 'empty / failed'];
  const rows = summary.groups.map((g) => [
    g.type, g.policy, String(g.tasks), withInterval(g.em), withInterval(g.es), num(g.idEm), num(g.idF1),
    `${num(g.latency.p50, 0)} / ${num(g.latency.p95, 0)} / ${num(g.latency.p99, 0)}`,
    num(g.promptTokens, 0), evaluatedCell(g.evaluated), num(g.candidates), num(g.kept), pct(g.needRate, 0), pct(g.reusedRatio, 0),
    `${g.empty} / ${g.failures}`,
  ]);
  return markdownTable(header, rows);
}

/** Policy A − policy B on the same tasks, paired bootstrap 95 % CIs (`*`: the CI excludes 0). */
export function differenceTable(summary: BenchSummary): string {
  const rows = summary.differences.map((d) => [d.type, `${d.a} − ${d.b}`, String(d.tasks), signedInterval(d.em), signedInterval(d.es)]);
  return markdownTable(['type', 'comparison', 'tasks', 'ΔEM (points)', 'ΔES (points)'], rows);
}

/** --typing mode: what a user felt, per keystroke request. */
export function typingTable(summary: BenchSummary): string | undefined {
  const typed = summary.groups.filter((g): g is GroupSummary & { typing: NonNullable<GroupSummary['typing']> } => g.typing !== undefined);
  if (typed.length === 0) return undefined;
  const rows = typed.map((g) => [
    g.type, g.policy, num(g.typing.keystrokesPerTask), pct(g.typing.shownRate, 0), pct(g.typing.emptyRate, 0),
    pct(g.typing.cancelledRate, 0), pct(g.typing.cacheHitRate, 0), pct(g.typing.reusedRatio, 0),
    `${num(g.typing.first.p50, 0)} / ${num(g.typing.first.p95, 0)}`, pct(g.typing.arrivalReusedRatio, 0),
    `${num(g.typing.keystroke.p50, 0)} / ${num(g.typing.keystroke.p95, 0)}`,
    `${num(g.typing.modelKeystroke.p50, 0)} / ${num(g.typing.modelKeystroke.p95, 0)}`,
    `${num(g.typing.settled.p50, 0)} / ${num(g.typing.settled.p95, 0)}`,
  ]);
  return markdownTable(['type', 'policy', 'keys/task', 'shown', 'empty', 'cancelled', 'cache hits', 'reused tok',
    'arrival to first answer p50 / p95 (ms)', 'arrival reused tok', 'keystroke to answer p50 / p95 (ms, no debounce)', 'of those, model answers p50 / p95 (ms)', 'after last key p50 / p95 (ms)'], rows);
}

/** API tasks: the callee's definition among the candidates and in the prompt, and EM split by it. */
export function evidenceTable(summary: BenchSummary): string | undefined {
  const rows = summary.groups
    .filter((g): g is GroupSummary & { evidence: NonNullable<GroupSummary['evidence']> } => g.evidence !== undefined && g.type !== 'all')
    .map((g) => [
      g.type, g.policy, String(g.evidence.tasks), pct(g.evidence.foundRate, 0), pct(g.evidence.inPromptRate, 0),
      num(g.evidence.emInPrompt), num(g.evidence.emNotInPrompt),
      g.evidence.keepAucPairs === 0 ? '–' : `${num(g.evidence.keepAuc, 2)} (${g.evidence.keepAucTasks} tasks, ${g.evidence.keepAucPairs} pairs)`,
    ]);
  if (rows.length === 0) return undefined;
  return markdownTable(['type', 'policy', 'tasks', 'definition retrieved', 'definition in prompt', 'EM % with it in prompt', 'EM % without', 'P(KEEP) AUC, definition vs others'], rows);
}

/** Harness cost per task run and the start-up per repository. */
export function timingTable(timing: HarnessTiming): string {
  return markdownTable(['measure', 'value'], [
    ['task runs', String(timing.runs)],
    ['harness wall per run, p50 / p95 / mean (ms)', `${num(timing.cycleMs.p50)} / ${num(timing.cycleMs.p95)} / ${num(timing.cycleMs.mean)}`],
    ['model forward passes per run, mean (ms)', num(timing.modelMs.mean)],
    ['overhead per run without forward passes, p50 / p95 / mean (ms)', `${num(timing.overheadMs.p50)} / ${num(timing.overheadMs.p95)} / ${num(timing.overheadMs.mean)}`],
    ['per repository: server start + index + warm-ups, mean (ms)', num(timing.repositoryStartMs.mean, 0)],
  ]);
}

/** The whole summary.md. */
export function reportMarkdown(meta: ReportMeta, summary: BenchSummary, timing: HarnessTiming): string {
  const typing = typingTable(summary);
  const evidence = evidenceTable(summary);
  return [
    `# Benchmark report ${meta.startedAt}`,
    '',
    '```sh', meta.command, '```',
    '',
    `Model: \`${meta.model}\`. Seed ${meta.seed}.${meta.language ? ` Language: ${meta.language}.` : ''} Repositories: ${meta.repositories.join(', ')}. ` +
      `Machine: ${meta.machine}. Wall time ${num(meta.wallMs / 1000, 0)} s.${meta.typing ? ' Mode: --typing (quality is of the completion after the last keystroke, against the rest of the target).' : ''}` +
        (meta.resumedResults ? ` Resumed: ${meta.resumedResults} results come from the journal of the interrupted run (\`--resume\`); the wall time is this process's.` : '') +
        (meta.reusedResults ? ` Reused: ${meta.reusedResults} (\`--reuse\`: the same tasks, model and settings, measured by a run of other policies).` : ''),
    '',
    '## Quality, latency and context per policy and task type',
    '',
    qualityTable(summary),
    '',
    'EM and ES as RepoShapley A.1 on whitespace-trimmed text (ES over code points); ID-EM/F1 as CrossCodeEval. ' +
      'Latency is client-side (request sent to answer received). Prompt tokens, candidates, kept chunks, NEED rate and reused tokens come from the server traces.',
    '',
    '## Differences between policies (paired bootstrap, 95 % CI)',
    '',
    differenceTable(summary),
    '',
    ...(evidence ? ['## Cross-file evidence on API tasks', '', evidence, '',
      'Whether a candidate covering the callee\'s definition was retrieved (top-K) and kept in the prompt. ' +
      'Policies that do not retrieve show 0 %; their EM is all in the "without" column. ' +
      'The AUC asks whether the model\'s selection (P(KEEP), reposhapley on NEED) ranks the candidate covering the ' +
      'definition above the other candidates of the same task: 0.5 is no skill, whatever the share it keeps.', ''] : []),
    ...(typing ? ['## Typing (per keystroke request)', '', typing, ''] : []),
    '## Harness timing',
    '',
    timingTable(timing),
    '',
    ...(meta.typing ? ['In --typing mode a run includes the keystroke gaps and the debounce, so "overhead" is mostly the typist.', ''] : []),
  ].join('\n');
}

function evaluatedCell(e: GroupSummary['evaluated']): string {
  return `${num(e.total, 0)} (${num(e.trigger, 0)} / ${num(e.selection, 0)} / ${num(e.prompt, 0)} / ${num(e.generated, 0)})`;
}
