/**
 * The oracle table (RepoShapley Appendix C.2, Table 6) read from the labels themselves: every
 * labeled instance already holds the decodes the oracles need (∅, and the verified pool, which
 * contains every Shapley prefix, so Full-Retrieve and "φ > 0"), so this costs no model call.
 * It shows, for the generator that made the labels, how much a perfect selection could gain over
 * Full-Retrieve, and how often retrieval helps or hurts: the ceiling the trained control tokens
 * aim at. bench/src/oracle.ts measures the same on the bench's tasks (a model run per task).
 *
 * The Δ-oracle and "φ > 0" keep the same chunks by construction: the surrogate game
 * σ(β Σ_{i∈S} Δ_i) − σ(0) is monotone in each Δ_i, so φ_i has Δ_i's sign; they differ in size and
 * order (the pool's prefixes), and the report checks the signs. An oracle whose coalition is not
 * among an instance's decodes leaves that instance out of every row, so all rows stay paired; the
 * report says how many were left out and why.
 *
 *   node dist/models/labeling/labelOracle.js [--labels DIR,DIR]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { ORACLES, oracleTable, type Oracle, type OracleRow } from '../../bench/src/oracleTable.js';
import type { LabelRecord } from './labelRecord.js';
import { bestCoalition } from './labels.js';
import { maskOf, popcount } from './shapley.js';
import { defaultLabelFolders, readLabelsByRepository } from './rebuildInstance.js';

type Decoded = { es: number; em: boolean; kept: number };

/** The oracle row of one record, or why it cannot have one. */
export function oracleRowOf(record: LabelRecord): OracleRow | { missing: Oracle } {
  const n = record.candidates.length;
  const decodes = new Map<string, Decoded>([[key([]), { es: record.empty.es, em: record.empty.em, kept: 0 }]]);
  for (const coalition of record.pool) decodes.set(key(coalition.members), { es: coalition.es, em: coalition.em, kept: coalition.members.length });
  const positive = (values: readonly number[]) => values.flatMap((value, i) => (value > 0 ? [i] : []));
  const coalitions: Record<Exclude<Oracle, 'verified'>, number[]> = {
    none: [], full: [...Array(n).keys()], delta: positive(record.deltas), shapley: positive(record.phi),
  };
  const scores = {} as OracleRow['scores'];
  for (const [oracle, members] of Object.entries(coalitions) as [Exclude<Oracle, 'verified'>, number[]][]) {
    const decoded = decodes.get(key(members));
    if (!decoded) return { missing: oracle };
    scores[oracle] = decoded;
  }
  // S* as the labeler and bench/src/oracle.ts choose it: ∅ first, so it wins unless beaten.
  const best = bestCoalition([{ ...record.empty, mask: 0 }, ...record.pool.map((c) => ({ ...c, mask: maskOf(c.members) }))])!;
  scores.verified = { es: best.es, em: best.em, kept: popcount(best.mask) };
  return { taskId: record.id, type: record.kind, candidates: n, scores };
}

function key(members: readonly number[]): string {
  return [...members].sort((a, b) => a - b).join(',');
}

/** How often retrieving everything helps, hurts or does nothing, by ES against ∅. */
export function fullAgainstNone(rows: readonly OracleRow[]): { helps: number; hurts: number; ties: number } {
  const counts = { helps: 0, hurts: 0, ties: 0 };
  for (const row of rows) {
    const gain = row.scores.full.es - row.scores.none.es;
    counts[gain > 0 ? 'helps' : gain < 0 ? 'hurts' : 'ties']++;
  }
  return counts;
}

/**
 * How far the Shapley values are from the Δs: instances whose φ > 0 and Δ > 0 sets differ, and the
 * mean |φ_i − Δ_i| against the mean |Δ_i|. They agree exactly when the surrogate game is additive.
 */
export function shapleyAgainstDelta(records: readonly LabelRecord[]): { differingSets: number; meanGap: number; meanDelta: number } {
  let differingSets = 0;
  let gap = 0;
  let size = 0;
  let values = 0;
  for (const record of records) {
    if (record.phi.some((phi, i) => phi > 0 !== record.deltas[i]! > 0)) differingSets++;
    record.phi.forEach((phi, i) => {
      gap += Math.abs(phi - record.deltas[i]!);
      size += Math.abs(record.deltas[i]!);
      values++;
    });
  }
  return { differingSets, meanGap: gap / Math.max(1, values), meanDelta: size / Math.max(1, values) };
}

/** The table, the counts and what was left out, as Markdown. */
export function labelOracleReport(records: readonly LabelRecord[]): string {
  const rows: OracleRow[] = [];
  const missing = new Map<Oracle, number>();
  for (const record of records) {
    const row = oracleRowOf(record);
    if ('missing' in row) missing.set(row.missing, (missing.get(row.missing) ?? 0) + 1);
    else rows.push(row);
  }
  const types = (['line', 'api', 'block'] as const).filter((type) => rows.some((r) => r.type === type));
  const { helps, hurts, ties } = fullAgainstNone(rows);
  const shapley = shapleyAgainstDelta(records);
  const leftOut = [...missing].map(([oracle, count]) => `${count} without the ${oracle} coalition among their decodes`).join(', ');
  return [
    `${rows.length} labeled instances${leftOut ? ` (left out: ${leftOut})` : ''}; ES / EM % / chunks kept:`, '',
    oracleTable(rows, types), '',
    `Full-Retrieve against ∅ by ES: helps in ${helps}, hurts in ${hurts}, ties in ${ties}.`,
    `φ > 0 and Δ > 0 choose different chunks in ${shapley.differingSets} of ${records.length} instances; ` +
      `mean |φ_i − Δ_i| ${shapley.meanGap.toFixed(4)} against mean |Δ_i| ${shapley.meanDelta.toFixed(4)} (log-likelihood units of the surrogate).`,
  ].join('\n');
}

async function main(): Promise<void> {
  const options = new Command()
    .description('The oracle table from the labels (no model calls).')
    .option('--labels <dirs>', 'label folders, comma-separated (*.jsonl, *.jsonl.gz)',
      defaultLabelFolders())
    .parse()
    .opts<{ labels: string }>();
  const records = [...(await readLabelsByRepository(options.labels.split(','))).values()].flat();
  console.log(labelOracleReport(records));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
