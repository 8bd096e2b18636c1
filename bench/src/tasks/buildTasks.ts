/**
 * The task builder: indexes each repository with the server's own WorkspaceIndex (same files,
 * same import resolution, same symbol graph), finds every candidate span per task type, then
 * samples deterministically: the limit is split evenly over task types, then over
 * repositories, then spread over files with a per-file cap (see sampling.ts). Each file is
 * parsed with its own language's grammar and cut by that language's rules (languages/); block
 * tasks are Python function bodies only.
 */
import path from 'node:path';
import type { LanguageId } from '../../../server/src/languages/language.js';
import { createParserSet, languageOfPath, type ParserSet } from '../../../server/src/languages/registry.js';
import type { FileIndex, IndexView } from '../../../server/src/indexing/types.js';
import { WorkspaceIndex } from '../../../server/src/indexing/workspaceIndex.js';
import { apiSpans } from './apiTasks.js';
import { blockSpans } from './blockTasks.js';
import { taskSyntaxOf } from './languages/taskSyntaxes.js';
import { lineSpans } from './lineTasks.js';
import { capacityAcrossFiles, pickAcrossFiles, splitQuota, strataRandom } from './sampling.js';
import { cutAt } from './taskText.js';
import type { BenchTask, TaskSpan, TaskType } from './types.js';

/** A repository: one Debian package's module tree. */
export interface Repository {
  name: string;
  /** Absolute path of the workspace root (the package's dist-packages directory, Go import path, crate, …). */
  root: string;
  /**
   * Only files of this language give tasks (a JavaScript package's `.d.ts` files do not); the
   * index still reads every file, for imports. Default: files of every registered language.
   */
  language?: LanguageId;
}

/** What the builder is asked for. */
export interface TaskBuildOptions {
  types: readonly TaskType[];
  /** Total tasks over all types and repositories. */
  limit: number;
  seed: number;
  /** Most tasks of one type from one file. */
  perFileCap: number;
}

/** Candidates found and tasks chosen, per repository and type. */
export interface TaskBuildStats {
  repository: string;
  files: number;
  candidates: Record<TaskType, number>;
  chosen: Record<TaskType, number>;
}

/** A span and the file it is in. */
interface Candidate {
  relPath: string;
  span: TaskSpan;
}

/** Candidate spans of one repository: type -> relPath (sorted) -> candidates. */
interface RepositoryCandidates {
  repository: Repository;
  files: Map<string, FileIndex>;
  spans: Record<TaskType, Map<string, Candidate[]>>;
}

/** Build the tasks, sorted by repository, file and position (the order the driver runs them). */
export async function buildTasks(
  repositories: readonly Repository[], options: TaskBuildOptions,
): Promise<{ tasks: BenchTask[]; stats: TaskBuildStats[] }> {
  const parsers = await createParserSet();
  const found: RepositoryCandidates[] = [];
  try {
    for (const repository of repositories) found.push(await findCandidates(repository, options.types, parsers));
  } finally {
    parsers.dispose();
  }
  const quotas = allocate(found, options);
  const tasks: BenchTask[] = [];
  const stats = found.map((repo) => statsOf(repo, options.types));
  found.forEach((repo, r) => {
    for (const type of options.types) {
      const random = strataRandom(options.seed, type, repo.repository.name);
      const picked = pickAcrossFiles(repo.spans[type], quotas.get(type)![r]!, options.perFileCap, random);
      stats[r]!.chosen[type] = picked.length;
      for (const { relPath, span } of picked) tasks.push(toTask(repo.repository, repo.files.get(relPath)!, span));
    }
  });
  return { tasks: tasks.sort(compareTasks), stats };
}

/** Quotas per type, then per repository within each type, by capacity. */
function allocate(found: readonly RepositoryCandidates[], options: TaskBuildOptions): Map<TaskType, number[]> {
  const capacity = (type: TaskType) => found.map((repo) => capacityAcrossFiles(repo.spans[type], options.perFileCap));
  const typeTotals = options.types.map((type) => capacity(type).reduce((a, b) => a + b, 0));
  const typeQuotas = splitQuota(options.limit, typeTotals);
  return new Map(options.types.map((type, t) => [type, splitQuota(typeQuotas[t]!, capacity(type))]));
}

async function findCandidates(repository: Repository, types: readonly TaskType[], parsers: ParserSet): Promise<RepositoryCandidates> {
  // The index gets a parser of its own: disposing an index disposes its parser.
  const index = await WorkspaceIndex.create();
  try {
    const result = await index.indexRoots([repository.root]);
    if (result.kind !== 'ok') throw new Error(`indexing ${repository.root} was cancelled`);
    const files = new Map([...index.files()].filter((f) => !f.hasSyntaxErrors && givesTasks(f.relPath, repository)).map((f) => [f.relPath, f]));
    const spans: RepositoryCandidates['spans'] = { line: new Map(), api: new Map(), block: new Map() };
    for (const relPath of [...files.keys()].sort()) {
      const perType = spansOf(files.get(relPath)!, parsers, index, types);
      for (const type of types) if (perType[type].length > 0) spans[type].set(relPath, perType[type].map((span) => ({ relPath, span })));
    }
    return { repository, files, spans };
  } finally {
    index.dispose(); // Frees WASM memory; the FileIndex objects are plain data and stay usable.
  }
}

/** Whether a file is of the repository's language (of a registered one when it has none). */
function givesTasks(relPath: string, repository: Repository): boolean {
  const language = languageOfPath(relPath);
  return language !== undefined && (repository.language === undefined || language.id === repository.language);
}

/** The spans of a file of a registered language. */
function spansOf(file: FileIndex, parsers: ParserSet, index: IndexView, types: readonly TaskType[]): Record<TaskType, TaskSpan[]> {
  const language = languageOfPath(file.relPath)!;
  const syntax = taskSyntaxOf(language.id);
  const tree = parsers.forPath(file.relPath)!.parse(file.text);
  try {
    return {
      line: types.includes('line') ? lineSpans(file, tree, language.editing.lexical, syntax) : [],
      api: types.includes('api') ? apiSpans(file, tree, index, syntax) : [],
      block: types.includes('block') ? blockSpans(file, tree) : [],
    };
  } finally {
    tree.delete();
  }
}

/** A task from a span: the disk text cut into prefix / target / suffix. */
export function toTask(repository: Repository, file: FileIndex, span: TaskSpan): BenchTask {
  const { prefix, target, suffix } = cutAt(file.text, span.start, span.end);
  const task: BenchTask = {
    id: `${repository.name}/${file.relPath}:${span.start.line + 1}:${span.start.character + 1}:${span.type}`,
    type: span.type, repository: repository.name, root: repository.root, relPath: file.relPath,
    absPath: path.join(repository.root, ...file.relPath.split('/')), cursor: span.start,
    prefix, target, suffix, mode: span.type === 'block' ? 'block' : 'line',
  };
  if (span.callee) task.callee = span.callee;
  return task;
}

function statsOf(repo: RepositoryCandidates, types: readonly TaskType[]): TaskBuildStats {
  const candidates = { line: 0, api: 0, block: 0 };
  for (const type of types) for (const spans of repo.spans[type].values()) candidates[type] += spans.length;
  return { repository: repo.repository.name, files: repo.files.size, candidates, chosen: { line: 0, api: 0, block: 0 } };
}

function compareTasks(a: BenchTask, b: BenchTask): number {
  return a.repository.localeCompare(b.repository) || a.relPath.localeCompare(b.relPath)
    || a.cursor.line - b.cursor.line || a.cursor.character - b.cursor.character || a.type.localeCompare(b.type);
}
