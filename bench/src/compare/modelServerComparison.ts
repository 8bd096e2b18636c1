/**
 * The same tasks run on the local model and through a llama-server (`npm run bench --
 * --model-server URL`): per policy, how many completions are identical, which differ and how,
 * and what each side cost. Under greedy decoding the two should agree but for float differences
 * between builds, so every differing task is listed with both texts for a reader to judge.
 */
import type { TaskResult } from '../driver/results.js';
import { average } from '../metrics/bootstrap.js';
import { quantile } from '../stats.js';

export interface PolicyAgreement {
  policy: string;
  tasks: number;
  identical: number;
  /** Tasks where one side answered and the other failed (timeout, error). */
  failedOnOneSide: number;
  local: SideStats;
  remote: SideStats;
  differing: { taskId: string; local: string; remote: string; sameDecision: boolean }[];
}

export interface SideStats {
  em: number;
  es: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
}

export function compareLocalRemote(local: readonly TaskResult[], remote: readonly TaskResult[]): PolicyAgreement[] {
  const remoteByKey = new Map(remote.map((r) => [`${r.policy}\u0000${r.taskId}`, r]));
  const policies = [...new Set(local.map((r) => r.policy))];
  return policies.map((policy) => {
    const pairs = local.filter((r) => r.policy === policy).flatMap((a) => {
      const b = remoteByKey.get(`${policy}\u0000${a.taskId}`);
      return b ? [[a, b] as const] : [];
    });
    const answered = (r: TaskResult) => r.outcome === 'ok' || r.outcome === 'empty';
    const differing = pairs.filter(([a, b]) => answered(a) && answered(b) && a.completion !== b.completion).map(([a, b]) => ({
      taskId: a.taskId, local: a.completion, remote: b.completion, sameDecision: a.trace?.decision === b.trace?.decision,
    }));
    return {
      policy, tasks: pairs.length,
      identical: pairs.filter(([a, b]) => answered(a) && answered(b) && a.completion === b.completion).length,
      failedOnOneSide: pairs.filter(([a, b]) => answered(a) !== answered(b)).length,
      local: sideStats(pairs.map(([a]) => a)), remote: sideStats(pairs.map(([, b]) => b)),
      differing,
    };
  });
}

function sideStats(results: readonly TaskResult[]): SideStats {
  const latencies = results.map((r) => r.latencyMs);
  return {
    em: 100 * average(results.map((r) => r.scores.em)),
    es: average(results.map((r) => r.scores.es)),
    latencyP50Ms: latencies.length ? quantile(latencies, 0.5) : 0,
    latencyP95Ms: latencies.length ? quantile(latencies, 0.95) : 0,
  };
}

/** The markdown section: a table per policy, then the differing tasks. */
export function agreementMarkdown(url: string, rows: readonly PolicyAgreement[]): string {
  const lines = [
    `## Local model against the model server ${url}`, '',
    '| policy | tasks | identical | failed on one side | EM local / remote | ES local / remote | latency p50 local / remote (ms) | p95 local / remote (ms) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.policy} | ${r.tasks} | ${r.identical} (${pct(r.identical, r.tasks)}) | ${r.failedOnOneSide} | ` +
      `${r.local.em.toFixed(1)} / ${r.remote.em.toFixed(1)} | ${r.local.es.toFixed(1)} / ${r.remote.es.toFixed(1)} | ` +
      `${Math.round(r.local.latencyP50Ms)} / ${Math.round(r.remote.latencyP50Ms)} | ${Math.round(r.local.latencyP95Ms)} / ${Math.round(r.remote.latencyP95Ms)} |`),
  ];
  for (const row of rows.filter((r) => r.differing.length > 0)) {
    lines.push('', `### ${row.policy}: ${row.differing.length} differing completions`, '');
    for (const d of row.differing) {
      lines.push(`- \`${d.taskId}\`${d.sameDecision ? '' : ' (different NEED/DONE decision)'}: local ${JSON.stringify(d.local)}, remote ${JSON.stringify(d.remote)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(0)} %`;
}
