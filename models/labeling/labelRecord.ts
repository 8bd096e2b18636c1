/** The JSON line the labeler writes per instance (documented in docs/labeling.md). */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import type { PromptBudgets } from '../../shared/settings.js';
import type { LayoutName } from '../../server/src/prompt/layouts.js';
import type { Target } from '../data/targets.js';
import type { PreparedTarget } from '../data/trainingSequences.js';
import type { ChunkShapleyResult } from './chunkShapley.js';
import { membersOf } from './shapley.js';

/** The frozen generator G and how it was prompted: what a rebuild of the instance must match. */
export interface LabelGenerator {
  /** The GGUF's file name. */
  model: string;
  /** `q8_0`: G ran from a copy of that file with its Q5_0 matrices stored as Q8_0, the same values (records since 2026-12-04). */
  matmulWeights?: 'q8_0';
  layout: LayoutName;
  budgets: PromptBudgets;
}

export interface LabelRecord {
  id: string;
  /** Absent in records before 2026-12-02: the small model, the RepoShapley layout, the default budgets. */
  generator?: LabelGenerator;
  repository: string;
  split: 'train' | 'val';
  path: string;
  kind: Target['kind'];
  /** 0-based cursor. */
  line: number;
  character: number;
  target: string;
  /** Packed candidates, in <C_i> order. */
  candidates: { relPath: string; startLine: number; endLine: number; sources: string[]; reduced: boolean }[];
  likelihoodEmpty: number;
  deltas: number[];
  phi: number[];
  empty: { completion: string; es: number; em: boolean };
  pool: { members: number[]; completion: string; es: number; em: boolean }[];
  /** S* members (0-based candidate indexes), r*, KEEP per candidate; absent when discarded. */
  best?: number[];
  retrieval?: 'need' | 'done';
  keep: boolean[];
  discarded?: string;
  timings: { probeMs: number; shapleyMs: number; verifyMs: number; totalMs: number };
}

export function labelRecord(input: {
  id: string; repository: string; split: 'train' | 'val'; target: Target; prepared: PreparedTarget;
  result: ChunkShapleyResult; generator: LabelGenerator; totalMs: number;
}): LabelRecord {
  const { target, prepared, result } = input;
  const count = prepared.plan.packed.length;
  const label = result.label;
  return {
    id: input.id, generator: input.generator, repository: input.repository, split: input.split, path: target.relPath, kind: target.kind,
    line: target.line, character: target.character, target: target.text,
    candidates: prepared.plan.packed.map((p) => {
      const candidate = prepared.candidates[p.candidateIndex]!;
      const { relPath, startLine, endLine } = candidate.chunk;
      return { relPath, startLine, endLine, sources: candidate.sources, reduced: p.reduced };
    }),
    likelihoodEmpty: result.likelihoodEmpty, deltas: result.deltas, phi: result.phi,
    empty: { completion: result.empty.completion, es: result.empty.es, em: result.empty.em },
    pool: result.pool.map((v) => ({ members: membersOf(v.mask, count), completion: v.completion, es: v.es, em: v.em })),
    best: label.kind === 'label' ? membersOf(label.best.mask, count) : undefined,
    retrieval: label.kind === 'label' ? label.retrieval : undefined,
    keep: result.keep,
    discarded: label.kind === 'discard' ? label.reason : undefined,
    timings: { ...result.timings, totalMs: input.totalMs },
  };
}

/**
 * Every record of every `*.jsonl` and `*.jsonl.gz` file in a label folder (shard files of one or
 * several machines side by side, and the compressed ones committed with a control pack), files
 * in name order. A torn last line of an interrupted run is skipped; the labeler labels that
 * instance again. A missing folder has no records.
 */
export async function readLabelFolder(dir: string): Promise<LabelRecord[]> {
  if (!existsSync(dir)) return [];
  const records: LabelRecord[] = [];
  const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl') || n.endsWith('.jsonl.gz')).sort();
  for (const name of names) {
    const bytes = await readFile(path.join(dir, name));
    const text = (name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        records.push(JSON.parse(line) as LabelRecord);
      } catch {
        // the torn last line of an interrupted run
      }
    }
  }
  return records;
}
