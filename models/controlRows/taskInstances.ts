/**
 * What taskSequences writes for one bench-style task of a training repository, and which packages
 * it refuses (the module comment of taskSequences.ts says why and how it is used).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_LANGUAGES } from '../../bench/src/benchLanguages.js';
import { parsePackageList } from '../../bench/src/debianPackages.js';
import { taskTarget, type ProbeModel } from '../../bench/src/modelProbes.js';
import { PACKAGE_LISTS_DIR, REPO_ROOT } from '../../bench/src/repoPaths.js';
import type { BenchTask } from '../../bench/src/tasks/types.js';
import { toTokenIds } from '../../server/src/prompt/segments.js';
import { keywordsOf } from '../../server/src/retrieval/tokens.js';
import { VALIDATION_PACKAGES } from '../corpus/splits.js';
import { evidenceOnlyIdentifiers, prepareTarget, type RepositoryTools } from '../data/trainingSequences.js';
import type { InstanceSequences } from './instanceSequences.js';

/**
 * One task's sequences: the none and full prompts as the server builds them, Y and the end token.
 * Undefined when Y is longer than the server generates (the bench still counts such a task; the
 * fine-tune could not teach it in one completion).
 */
export async function taskSequences(
  task: BenchTask, id: string, split: 'train' | 'val', repo: RepositoryTools, probe: Pick<ProbeModel, 'model' | 'prompt'>,
): Promise<InstanceSequences | undefined> {
  const { fileText, target } = taskTarget(task);
  const prepared = await prepareTarget(repo, probe.prompt, task.absPath, fileText, target);
  if (!prepared) return undefined;
  const { layout, special } = probe.prompt;
  const ids = (segments: Parameters<typeof toTokenIds>[0]) => toTokenIds(segments, special);
  const noRetrieval = ids(layout!.generation({ ...prepared.plan, packed: [] }, []));
  const packed = prepared.plan.packed.map((_, i) => i);
  const evidence = packed.length > 0 ? ids(layout!.generation(prepared.plan, packed)) : undefined;
  const evidenceOnly = evidenceOnlyIdentifiers(prepared.plan, prepared.y.text, keywordsOf(task.relPath));
  return {
    fields: { id, repository: task.repository, split, kind: task.type, retrieval: evidence ? 'need' : 'done', keep: [], esEmpty: 0, evidenceOnly },
    trigger: noRetrieval, generation: [], y: prepared.y.ids, end: special.endOfText, ...(evidence ? { evidence } : {}), selection: [],
  };
}

/**
 * Training data never comes from a benchmark repository (../shared/bench/packages*.txt, the brief),
 * and the training split never from a validation package (corpus/splits.ts, and every
 * task-packages/*-val.txt list).
 */
export function refuseHeldOutPackages(
  packages: readonly string[], split: 'train' | 'val',
  benchLists: readonly string[] = benchPackageLists(), validationLists: readonly string[] = taskValidationLists(),
): void {
  const bench = new Set(packagesOf(benchLists));
  const validation = new Set([...VALIDATION_PACKAGES, ...packagesOf(validationLists)]);
  const refused = packages.filter((name) => bench.has(name) || (split === 'train' && validation.has(name)));
  if (refused.length > 0) {
    throw new Error(`refused: ${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} held out (a bench package list, or a validation package for the training split)`);
  }
}

/** The committed lists of training and validation packages per language. */
export const TASK_PACKAGE_LISTS_DIR = path.join(REPO_ROOT, 'models', 'controlRows', 'task-packages');

function packagesOf(lists: readonly string[]): string[] {
  return lists.flatMap((file) => parsePackageList(readFileSync(file, 'utf8')));
}

function benchPackageLists(): string[] {
  return Object.values(BENCH_LANGUAGES).map((language) => path.join(PACKAGE_LISTS_DIR, language.packageList));
}

function taskValidationLists(): string[] {
  return readdirSync(TASK_PACKAGE_LISTS_DIR).filter((file) => file.endsWith('-val.txt')).map((file) => path.join(TASK_PACKAGE_LISTS_DIR, file));
}
