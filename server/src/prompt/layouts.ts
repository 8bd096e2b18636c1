/**
 * A prompt layout is one object, chosen once when a model loads ({@link chooseLayout}): how the
 * in-file context is fitted, how retrieved candidates are rendered and packed, and how the
 * generation prompt is laid out. Policies and the pipeline only call it; nothing else decides
 * which layout a model gets.
 *
 *   reposhapley  <PFX>Xp<SFX>Xs<NEED>Pack(kept)<DONE><MID>      (sequences.ts; models with control tokens)
 *   repo-fim     <|repo_name|>R\n<|file_sep|>path\nchunk… <|file_sep|>file\n<PFX>Xp<SFX>Xs<MID>
 *                (Qwen2.5-Coder's repository-level pretraining format: cross-file evidence as the
 *                other files of the repository, ahead of the FIM prefix)
 *   plain-fim    <PFX>[chunks as # comments]Xp<SFX>Xs<MID>       (plainFim.ts; any FIM model)
 */
import type { ModelInfo } from '../model/completionModel.js';
import type { Candidate } from '../retrieval/types.js';
import { packCandidates, withFinalNewline, type PackedChunk, type TokenizedText } from './budget.js';
import type { LineTokenizer } from './lineTokenizer.js';
import { commentedChunk, plainFimSegments } from './plainFim.js';
import { generationSegments, noRetrievalSegments, planPrompt, type PromptPlan } from './sequences.js';
import { special, type Segment } from './segments.js';
import type { LayoutPreference, PromptBudgets } from '../../../shared/settings.js';

export type LayoutName = 'reposhapley' | 'repo-fim' | 'plain-fim';



/** Where the cursor is, for the in-file plan. */
export interface InFileInput {
  prefix: string;
  suffix: string;
  /** The document's path as the prompt names it (workspace-relative when it has one). */
  path: string;
  /** The repository's name (the workspace folder's). */
  repoName: string;
}

export interface PromptLayout {
  readonly name: LayoutName;
  /** Fit prefix and suffix to the budgets; nothing packed yet. */
  planInFile(input: InFileInput, budgets: PromptBudgets, tokenizer: LineTokenizer): PromptPlan;
  /** Render and pack candidates in rank order within the chunk budget. */
  pack(candidates: readonly Candidate[], budgets: PromptBudgets, tokenizer: LineTokenizer): PackedChunk[];
  /** The generation prompt seeing `plan.packed[kept]` (none kept, none packed: no retrieval). */
  generation(plan: PromptPlan, kept: readonly number[]): Segment[];
}

const reposhapleyLayout = (echoLines: number): PromptLayout => ({
  name: 'reposhapley',
  planInFile: (input, budgets, tokenizer) => planPrompt(input.prefix, input.suffix, [], budgets, tokenizer, echoLines),
  pack: (candidates, budgets, tokenizer) => packCandidates(candidates, budgets.chunkTokens, tokenizer),
  generation: (plan, kept) =>
    (kept.length === 0 && plan.packed.length === 0 ? noRetrievalSegments(plan) : generationSegments(plan, kept)),
});

const plainFimLayout: PromptLayout = {
  name: 'plain-fim',
  planInFile: (input, budgets, tokenizer) => planPrompt(input.prefix, input.suffix, [], budgets, tokenizer),
  pack: (candidates, budgets, tokenizer) => packCandidates(candidates, budgets.chunkTokens, tokenizer, commentedChunk),
  generation: plainFimSegments,
};

const repoFimLayout: PromptLayout = {
  name: 'repo-fim',
  planInFile(input, budgets, tokenizer) {
    return {
      ...planPrompt(input.prefix, input.suffix, [], budgets, tokenizer),
      repository: { name: tokenized(`${input.repoName}\n`, tokenizer), file: tokenized(`${input.path}\n`, tokenizer) },
    };
  },
  // Each chunk is a `<|file_sep|>` section: its path line, then its code (a chunk, not the
  // whole file). The separator is one token; packCandidates counts two per chunk.
  pack: (candidates, budgets, tokenizer) =>
    packCandidates(candidates, budgets.chunkTokens, tokenizer, (candidate, body) => `${sectionPath(candidate)}\n${withFinalNewline(body)}`),
  generation: repoFimSegments,
};

/**
 * The path a chunk's section is headed by: its file's. An import outline lives in the importing
 * file but lists other files' definitions; headed by the current file it would read as a second
 * copy of it, so it takes the path of what it lists when that is one file.
 */
function sectionPath(candidate: Candidate): string {
  const listed = new Set(candidate.lists?.map((d) => d.relPath));
  return listed.size === 1 ? [...listed][0]! : candidate.chunk.relPath;
}

/**
 * The repository format: the kept chunks as other files of the repository, best-ranked last so
 * the strongest evidence sits nearest the current file, then the current file in FIM form.
 */
export function repoFimSegments(plan: PromptPlan, kept: readonly number[]): Segment[] {
  const repository = plan.repository;
  if (!repository) throw new Error('repo-fim prompt without a repository header: plan it with the repo-fim layout');
  const chunks = [...kept].reverse().flatMap((i): Segment[] => {
    const chunk = plan.packed[i]!;
    return [special('FILE_SEP'), { kind: 'text', text: chunk.text, ids: chunk.ids }];
  });
  return [
    special('REPO'), text(repository.name), ...chunks, special('FILE_SEP'), text(repository.file),
    special('PFX'), text(plan.prefix), special('SFX'), text(plan.suffix), special('MID'),
  ];
}

/**
 * The layout for a model: the RepoShapley format when it has the control tokens; else its
 * repository format when its vocabulary has one (and the preference allows), else plain FIM.
 */
export function chooseLayout(info: ModelInfo, preference: LayoutPreference = 'auto'): PromptLayout {
  if (info.hasControlTokens) return reposhapleyLayout(info.echoLines);
  const hasRepoFormat = info.special.repoName !== undefined && info.special.fileSeparator !== undefined;
  if (preference !== 'plain-fim' && hasRepoFormat) return repoFimLayout;
  return plainFimLayout;
}

/** A layout by name (tests, the bench, the labeler); servers use {@link chooseLayout}. */
export function layoutByName(name: LayoutName, echoLines = 0): PromptLayout {
  if (name === 'reposhapley') return reposhapleyLayout(echoLines);
  return name === 'repo-fim' ? repoFimLayout : plainFimLayout;
}

function tokenized(value: string, tokenizer: LineTokenizer): TokenizedText {
  return { text: value, ids: tokenizer.text(value) };
}

const text = (t: TokenizedText): Segment => ({ kind: 'text', text: t.text, ids: t.ids });

