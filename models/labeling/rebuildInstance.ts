/**
 * A labeled instance rebuilt as the labeler built it: the same corpus file, cursor, retrieval and
 * packing (prepareTarget), so distillation data and control-row features see the labeled prompts.
 * A record whose file, target or packed candidates differ today is refused (stale), never
 * relabeled silently.
 */
import path from 'node:path';
import { defaultCacheDir } from '../../bench/src/debianPackages.js';
import { clampedOffset } from '../../server/src/indexing/textEdits.js';
import { controlPacksDir } from '../../server/src/modelStore/controlPack.js';
import type { Target } from '../data/targets.js';
import { prepareTarget, type PreparedTarget, type PromptSettings, type RepositoryTools } from '../data/trainingSequences.js';
import { readLabelFolder, type LabelRecord } from './labelRecord.js';

/** The model whose label set the tools read by default. */
export const DEFAULT_LABEL_MODEL = 'qwen2.5-coder-0.5b';

/** Its label folders, comma-separated: the records committed with its control pack, then the labeler's cache. */
export function defaultLabelFolders(model = DEFAULT_LABEL_MODEL): string {
  return [path.join(controlPacksDir(), model, 'labels'), path.join(defaultCacheDir(), `labels-${model}`)].join(',');
}

/** Label records of the folders, deduplicated by id (the last wins), grouped by repository in name order. */
export async function readLabelsByRepository(dirs: string | readonly string[]): Promise<Map<string, LabelRecord[]>> {
  const records = (await Promise.all((typeof dirs === 'string' ? [dirs] : dirs).map((dir) => readLabelFolder(dir)))).flat();
  const byId = new Map(records.map((record) => [record.id, record]));
  const byRepository = new Map<string, LabelRecord[]>();
  for (const record of byId.values()) {
    const list = byRepository.get(record.repository) ?? [];
    list.push(record);
    byRepository.set(record.repository, list);
  }
  return new Map([...byRepository].sort(([a], [b]) => a.localeCompare(b)));
}

/** The labeled instance rebuilt, or undefined when anything differs from what was labeled. */
export async function rebuildInstance(record: LabelRecord, repo: RepositoryTools, prompt: PromptSettings): Promise<PreparedTarget | undefined> {
  const file = repo.index.file(record.path);
  if (!file) return undefined;
  // The check on the text catches a cursor that no longer points where it did.
  const start = clampedOffset(file.text, { line: record.line, character: record.character });
  if (file.text.slice(start, start + record.target.length) !== record.target) return undefined;
  const target: Target = {
    kind: record.kind, relPath: record.path, line: record.line, character: record.character,
    start, end: start + record.target.length, text: record.target,
  };
  const prepared = await prepareTarget(repo, prompt, file.absPath, file.text, target);
  if (!prepared || !sameCandidates(prepared, record)) return undefined;
  return prepared;
}

function sameCandidates(prepared: PreparedTarget, record: LabelRecord): boolean {
  const now = prepared.plan.packed.map((p) => {
    const { relPath, startLine, endLine } = prepared.candidates[p.candidateIndex]!.chunk;
    return `${relPath}:${startLine}-${endLine}:${p.reduced}`;
  });
  const then = record.candidates.map((c) => `${c.relPath}:${c.startLine}-${c.endLine}:${c.reduced}`);
  return now.join('\n') === then.join('\n');
}
