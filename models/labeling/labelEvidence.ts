/**
 * The callee's definition as the labels see it. Issue 20 asks the trained selection to rank an API
 * call's definition above the other candidates (KEEP AUC ≥ 0.75, the bench's evidence table); this
 * reads whether the labels the selection learns from rank it so. For every API record the call at
 * the cursor is resolved by the bench's rule (bench/src/tasks/callResolution.ts); the candidates
 * covering its definition are the bench's too (a chunk holding the definition's first line, or the
 * import outline listing it). Over every pair of a covering and a non-covering candidate of one
 * record, it counts how often φ, and the verified KEEP, put the covering one higher: an AUC of 0.5
 * means the labels do not prefer the definition, and a selection that fits them will not either.
 *
 * Costs no model call: only the corpus index. The outline is rebuilt from the file as it is on
 * disk, target included, so when a file imports more names than the outline holds, the order by
 * uses (and so which names fit) can differ by the target's own call from what the labeler saw.
 *
 *   node dist/models/labeling/labelEvidence.js [--labels DIR,DIR] [--corpus DIR]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { coversDefinition, type DefinitionStart } from '../../bench/src/metrics/evidence.js';
import { concordantPairs } from '../../bench/src/metrics/ranking.js';
import { resolveCallee } from '../../bench/src/tasks/callResolution.js';
import { createParserForPath } from '../../server/src/languages/registry.js';
import type { SyntaxParser, SyntaxNode } from '../../server/src/languages/syntaxTree.js';
import type { FileIndex, IndexView } from '../../server/src/indexing/types.js';
import { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import { importOutline } from '../../server/src/retrieval/structural.js';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { defaultCorpusDir } from '../corpus/corpusReader.js';
import type { LabelRecord } from './labelRecord.js';
import { defaultLabelFolders, readLabelsByRepository } from './rebuildInstance.js';

/** One API record and, when its call resolves to another file, which candidates cover the definition. */
export interface ResolvedRecord {
  record: LabelRecord;
  /** Per candidate; undefined when the call resolves to no definition in another file. */
  covering?: boolean[];
}

type Ranking = { wins: number; pairs: number; records: number };
type Group = 'need' | 'labeled' | 'all';
export type CandidateRole = 'definition (outline)' | 'definition (chunk)' | 'other outline' | 'other';

export interface DefinitionEvidence {
  apiRecords: number;
  crossFile: number;
  withCovering: number;
  /** φ and KEEP of covering against non-covering candidates, per record group. */
  rankings: Record<Group, { phi: Ranking; keep: Ranking }>;
  /** In NEED records: how many candidates of each role there are, and how many S* keeps. */
  keptByRole: Map<CandidateRole, { count: number; kept: number }>;
}

/** The import outline is the one import-sourced candidate drawn from the document itself. */
export function isOutline(record: Pick<LabelRecord, 'path'>, candidate: LabelRecord['candidates'][number]): boolean {
  return candidate.sources.includes('import') && candidate.relPath === record.path;
}

/** The call whose callee the cursor is at: at the call's start (since 2026-12-05) or at the called name (before). */
export function callAtCursor(root: SyntaxNode, line: number, character: number): SyntaxNode | undefined {
  const at = (node: SyntaxNode | null | undefined) => node?.startPosition.row === line && node.startPosition.column === character;
  for (const call of root.descendantsOfType('call')) {
    const callee = call?.childForFieldName('function');
    if (!call || !callee) continue;
    if (at(call) || (callee.type === 'attribute' && at(callee.childForFieldName('attribute')))) return callee;
  }
  return undefined;
}

/** Which candidates cover `definition`, by the bench's evidence rule; a record keeps no outline's list, so it is passed. */
export function coveringCandidates(
  record: Pick<LabelRecord, 'path' | 'candidates'>, definition: DefinitionStart, outlineLists: readonly DefinitionStart[],
): boolean[] {
  return record.candidates.map((c) => coversDefinition({ ...c, lists: isOutline(record, c) ? outlineLists : undefined }, definition));
}

/** Pairs of a covering and a non-covering candidate where `scores` puts the covering one higher (ties half). */
export function definitionPairs(scores: readonly number[], covering: readonly boolean[]): { wins: number; pairs: number } {
  return concordantPairs(scores.filter((_, i) => covering[i]), scores.filter((_, i) => !covering[i]));
}

/** The record with its covering candidates, through the repository's index. */
export function resolveRecord(record: LabelRecord, view: IndexView, parser: SyntaxParser): ResolvedRecord {
  const file = view.file(record.path);
  if (!file) return { record };
  const tree = parser.parse(file.text);
  try {
    const callee = callAtCursor(tree.rootNode, record.line, record.character);
    const definition = callee && resolveCallee(callee, file, view);
    if (!definition || definition.relPath === record.path) return { record };
    return { record, covering: coveringCandidates(record, definition, outlineListsOf(view, file, record.line)) };
  } finally {
    tree.delete();
  }
}

function outlineListsOf(view: IndexView, file: FileIndex, cursorLine: number): DefinitionStart[] {
  return importOutline(view, { file, relPath: file.relPath, prefixLines: [], suffixText: '', cursorLine })?.lists ?? [];
}

export function definitionEvidence(resolved: readonly ResolvedRecord[]): DefinitionEvidence {
  const empty = (): Ranking => ({ wins: 0, pairs: 0, records: 0 });
  const rankings = { need: { phi: empty(), keep: empty() }, labeled: { phi: empty(), keep: empty() }, all: { phi: empty(), keep: empty() } };
  const keptByRole = new Map<CandidateRole, { count: number; kept: number }>();
  let crossFile = 0;
  let withCovering = 0;
  for (const { record, covering } of resolved) {
    if (!covering) continue;
    crossFile++;
    if (covering.some(Boolean)) withCovering++;
    const groups: Group[] = record.retrieval === 'need' ? ['need', 'labeled', 'all'] : record.retrieval ? ['labeled', 'all'] : ['all'];
    for (const group of groups) {
      add(rankings[group].phi, covering, record.phi);
      add(rankings[group].keep, covering, record.keep.map(Number));
    }
    if (record.retrieval === 'need') countRoles(keptByRole, record, covering);
  }
  return { apiRecords: resolved.length, crossFile, withCovering, rankings, keptByRole };
}

function add(ranking: Ranking, covering: readonly boolean[], scores: readonly number[]): void {
  const { wins, pairs } = definitionPairs(scores, covering);
  ranking.wins += wins;
  ranking.pairs += pairs;
  if (pairs > 0) ranking.records++;
}

function countRoles(roles: Map<CandidateRole, { count: number; kept: number }>, record: LabelRecord, covering: readonly boolean[]): void {
  record.candidates.forEach((candidate, i) => {
    const outline = isOutline(record, candidate);
    const role: CandidateRole = covering[i] ? (outline ? 'definition (outline)' : 'definition (chunk)') : outline ? 'other outline' : 'other';
    const entry = roles.get(role) ?? { count: 0, kept: 0 };
    entry.count++;
    if (record.keep[i]) entry.kept++;
    roles.set(role, entry);
  });
}

export function definitionEvidenceReport(evidence: DefinitionEvidence): string {
  const auc = ({ wins, pairs, records }: Ranking) => (pairs ? `${(wins / pairs).toFixed(3)} (${pairs} pairs, ${records} records)` : '—');
  const groups: [Group, string][] = [['need', 'NEED'], ['labeled', 'NEED or DONE'], ['all', 'all, discarded included']];
  const roles = [...evidence.keptByRole].map(([role, { count, kept }]) => `| ${role} | ${count} | ${kept} (${Math.round((100 * kept) / count)} %) |`);
  return [
    `${evidence.apiRecords} API records; ${evidence.crossFile} call a definition in another file (the bench's rule); ` +
      `${evidence.withCovering} of those have a candidate covering it.`, '',
    '| records | φ AUC, definition vs other candidates | KEEP AUC |', '|---|---|---|',
    ...groups.map(([group, name]) => `| ${name} | ${auc(evidence.rankings[group].phi)} | ${auc(evidence.rankings[group].keep)} |`), '',
    '| candidates of NEED records | count | kept by S* |', '|---|---|---|', ...roles,
  ].join('\n');
}

async function resolveAll(byRepository: Map<string, LabelRecord[]>, corpusDir: string): Promise<{ resolved: ResolvedRecord[]; missing: string[] }> {
  const parser = await createParserForPath('module.py');
  const resolved: ResolvedRecord[] = [];
  const missing: string[] = [];
  try {
    for (const [repository, records] of byRepository) {
      const api = records.filter((r) => r.kind === 'api');
      const root = path.join(corpusDir, repository);
      if (api.length === 0) continue;
      if (!existsSync(root)) {
        missing.push(repository);
        continue;
      }
      const index = await WorkspaceIndex.create({ windowLines: DEFAULT_SETTINGS.windowLines, windowStride: DEFAULT_SETTINGS.windowStride });
      try {
        await index.indexRoots([root]);
        resolved.push(...api.map((record) => resolveRecord(record, index, parser)));
      } finally {
        index.dispose();
      }
    }
  } finally {
    parser.dispose();
  }
  return { resolved, missing };
}

async function main(): Promise<void> {
  const options = new Command()
    .description("Whether the labels rank an API call's definition above the other candidates (no model calls).")
    .option('--labels <dirs>', 'label folders, comma-separated (*.jsonl, *.jsonl.gz)',
      defaultLabelFolders())
    .option('--corpus <dir>', 'corpus folder (models/corpus/buildCorpus.js fills it; label-qwen.sh builds it when missing)', defaultCorpusDir())
    .parse()
    .opts<{ labels: string; corpus: string }>();
  const { resolved, missing } = await resolveAll(await readLabelsByRepository(options.labels.split(',')), options.corpus);
  if (missing.length) console.error(`not in the corpus folder (${options.corpus}), left out: ${missing.join(', ')}`);
  console.log(definitionEvidenceReport(definitionEvidence(resolved)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
