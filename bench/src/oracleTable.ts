/** The oracle table's rows and rendering (oracle.ts runs the decodes). */
import type { TaskType } from './tasks/types.js';

export const ORACLES = ['none', 'full', 'delta', 'shapley', 'verified'] as const;
export type Oracle = (typeof ORACLES)[number];
const ORACLE_LABELS: Record<Oracle, string> = {
  none: 'No retrieval (∅)', full: 'Full-Retrieve', delta: 'Δ-oracle (CODEFILTER-like)', shapley: 'Shapley φ > 0 (unverified)', verified: 'Shapley-verified (S*)',
};

export interface OracleRow {
  taskId: string;
  type: TaskType;
  candidates: number;
  scores: Record<Oracle, { es: number; em: boolean; kept: number }>;
}

/** Mean ES, EM % and chunks kept per oracle, by task type and overall. */
export function oracleTable(rows: readonly OracleRow[], types: readonly TaskType[]): string {
  const header = ['| oracle', ...[...types, 'all'].map((t) => `${t}: ES / EM % / kept`)].join(' | ') + ' |';
  const lines = [header, `|${' --- |'.repeat(types.length + 2)}`];
  for (const oracle of ORACLES) {
    const cells = [...types, 'all'].map((type) => {
      const subset = rows.filter((r) => type === 'all' || r.type === type);
      if (subset.length === 0) return '—';
      const mean = (f: (r: OracleRow) => number) => subset.reduce((a, r) => a + f(r), 0) / subset.length;
      return `${mean((r) => r.scores[oracle].es).toFixed(1)} / ${(100 * mean((r) => Number(r.scores[oracle].em))).toFixed(1)} / ${mean((r) => r.scores[oracle].kept).toFixed(1)}`;
    });
    lines.push(`| ${ORACLE_LABELS[oracle]} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

