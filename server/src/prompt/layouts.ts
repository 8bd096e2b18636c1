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
 *   repo-fim-line  as repo-fim, but Xp stops at the start of the cursor line and the line's typed
 *                text follows <MID> as the middle's forced start: everything up to <MID> stays the
 *                same while the user types on the line, so a keystroke re-reads a token or two
 *                instead of the cursor line and the whole suffix (issue 19)
 *   repo-fim-pack-last  the paper's order in Qwen's tokens: the file's FIM prefix and suffix, then
 *                the chunks as `<|file_sep|>` sections, then <MID>. Every keystroke changes the
 *                prefix, so the whole pack is read again: kept to measure that order against
 *                repo-fim (issue 19: latency and quality in one run), not to serve
 *   plain-fim    <PFX>[chunks as # comments]Xp<SFX>Xs<MID>       (plainFim.ts; any FIM model)
 *
 * A layout for a model with control tokens also says where Algorithm 1 reads its decisions
 * ({@link ControlFormat}): the RepoShapley sequences of the paper, or, for a pretrained model that
 * learned only its control rows (a derived Qwen2.5-Coder), a trigger after the in-file context
 * and one KEEP/DROP right after each candidate (docs/control-tokens.md says why).
 */
import type { ModelInfo } from '../model/completionModel.js';
import type { Candidate } from '../retrieval/types.js';
import { packCandidates, withFinalNewline, type PackedChunk, type TokenizedText } from './budget.js';
import type { LineTokenizer } from './lineTokenizer.js';
import { commentedChunk, plainFimSegments } from './plainFim.js';
import { generationSegments, inFileSegments, noRetrievalSegments, planPrompt, selectionSegments, type PromptPlan } from './sequences.js';
import { special, type Segment } from './segments.js';
import type { LayoutPreference, PromptBudgets } from '../../../shared/settings.js';

export type LayoutName = 'reposhapley' | 'repo-fim' | 'repo-fim-line' | 'repo-fim-pack-last' | 'plain-fim';



/** Where the cursor is, for the in-file plan. */
export interface InFileInput {
  prefix: string;
  suffix: string;
  /** The document's path as the prompt names it (workspace-relative when it has one). */
  path: string;
  /** The repository's name (the workspace folder's). */
  repoName: string;
}

/**
 * Where the control decisions of Algorithm 1 are read. The NEED/DONE decision comes right after
 * `trigger`; the KEEP/DROP decisions after `prefix` plus each step in turn, the chosen token
 * appended before the next step. Labeler, trainer features, bench and server all build the
 * decision prompts here, so they are the same bytes.
 */
export interface ControlFormat {
  trigger(plan: PromptPlan): Segment[];
  selection(plan: PromptPlan): { prefix: Segment[]; steps: Segment[][] };
}

export interface PromptLayout {
  readonly name: LayoutName;
  /** Present when the model has control tokens to decide with. */
  readonly control?: ControlFormat;
  /** Fit prefix and suffix to the budgets; nothing packed yet. */
  planInFile(input: InFileInput, budgets: PromptBudgets, tokenizer: LineTokenizer): PromptPlan;
  /** Render and pack candidates in rank order within the chunk budget. */
  pack(candidates: readonly Candidate[], budgets: PromptBudgets, tokenizer: LineTokenizer): PackedChunk[];
  /** The generation prompt seeing `plan.packed[kept]` (none kept, none packed: no retrieval). */
  generation(plan: PromptPlan, kept: readonly number[]): Segment[];
}

const reposhapleyLayout = (echoLines: number): PromptLayout => ({
  name: 'reposhapley',
  // The paper's Format-1: all K decisions after <SELECT>, one after another.
  control: {
    trigger: inFileSegments,
    selection: (plan) => ({ prefix: selectionSegments(plan), steps: plan.packed.map(() => []) }),
  },
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

/** repo-fim with the cursor line moved after <MID> (see the module comment). */
const repoFimLineLayout: PromptLayout = {
  ...repoFimLayout,
  name: 'repo-fim-line',
  planInFile(input, budgets, tokenizer) {
    const plan = repoFimLayout.planInFile(input, budgets, tokenizer);
    const lineStart = plan.prefix.text.lastIndexOf('\n') + 1;
    if (lineStart === plan.prefix.text.length) return plan;
    // Ids are per line (lineTokenizer.ts), so the prefix's ids end with the cursor line's.
    const cursorLine = tokenized(plan.prefix.text.slice(lineStart), tokenizer);
    const prefix = { text: plan.prefix.text.slice(0, lineStart), ids: plan.prefix.ids.slice(0, plan.prefix.ids.length - cursorLine.ids.length) };
    return { ...plan, prefix, cursorLine };
  },
};

/** repo-fim with the chunks after the suffix (see the module comment). */
const repoFimPackLastLayout: PromptLayout = {
  ...repoFimLayout,
  name: 'repo-fim-pack-last',
  generation: repoFimPackLastSegments,
};

/**
 * The repository format with control tokens (a derived Qwen2.5-Coder). Trigger: the no-retrieval
 * prompt through `<|fim_middle|>`, where the completion starts: a DONE generation evaluates
 * nothing new, and there <NEED> competes with the code the model would write (at the end of the
 * suffix the model only ever predicts `<|fim_middle|>`, and its state there told nothing about
 * whether retrieval helps: docs/control-tokens.md). Selection: `<NEED>`, then each candidate as
 * `<C_i>path\ncode</C_i>` with its decision right after it, where the model has just read the
 * candidate in the light of the cursor.
 */
const repoFimControlLayout: PromptLayout = {
  ...repoFimLayout,
  control: {
    trigger: (plan) => repoFimNoRetrieval(plan),
    selection: (plan) => ({ prefix: [...repoFimNoRetrieval(plan), special('NEED')], steps: candidateSteps(plan) }),
  },
};

/**
 * repo-fim-line with control tokens. The trigger is read where the completion starts, after
 * `<|fim_middle|>` and the cursor line's typed text: the no-retrieval prompt whole, so a DONE
 * generation evaluates nothing new, and the decision sees what is typed on the line (`x = ` before
 * a call). Selection continues from there with `<NEED>` and the candidates, as repo-fim's does.
 */
const repoFimLineControlLayout: PromptLayout = {
  ...repoFimLineLayout,
  control: {
    trigger: (plan) => repoFimNoRetrieval(plan),
    selection: (plan) => ({ prefix: [...repoFimNoRetrieval(plan), special('NEED')], steps: candidateSteps(plan) }),
  },
};

/**
 * repo-fim-pack-last with control tokens: the decisions are read as repo-fim's are (the
 * no-retrieval prompt is the same bytes in both orders), only the generation puts the kept
 * chunks after the suffix.
 */
const repoFimPackLastControlLayout: PromptLayout = {
  ...repoFimPackLastLayout,
  control: repoFimControlLayout.control!,
};

/** The repository prompt with no chunks, through `<|fim_middle|>` (and the cursor line, where the plan moved it there). */
function repoFimNoRetrieval(plan: PromptPlan): Segment[] {
  return repoFimSegments({ ...plan, packed: [] }, []);
}

function candidateSteps(plan: PromptPlan): Segment[][] {
  return plan.packed.map((chunk, i) => [special(`C_${i + 1}`), text(chunk), special(`/C_${i + 1}`)]);
}

/**
 * The repository format: the kept chunks as other files of the repository, best-ranked last so
 * the strongest evidence sits nearest the current file, then the current file in FIM form.
 */
export function repoFimSegments(plan: PromptPlan, kept: readonly number[]): Segment[] {
  const repository = repositoryOf(plan);
  return [
    special('REPO'), text(repository.name), ...keptSections(plan, kept), special('FILE_SEP'), text(repository.file),
    special('PFX'), text(plan.prefix), special('SFX'), text(plan.suffix), special('MID'),
    ...(plan.cursorLine ? [text(plan.cursorLine)] : []),
  ];
}

/**
 * The paper's order (prefix, suffix, then the pack) in the repository format: the current file's
 * FIM prefix and suffix, the kept chunks as `<|file_sep|>` sections (best-ranked last, nearest the
 * middle), then `<|fim_middle|>`. With nothing kept it is repo-fim's no-retrieval prompt.
 */
export function repoFimPackLastSegments(plan: PromptPlan, kept: readonly number[]): Segment[] {
  const repository = repositoryOf(plan);
  return [
    special('REPO'), text(repository.name), special('FILE_SEP'), text(repository.file),
    special('PFX'), text(plan.prefix), special('SFX'), text(plan.suffix), ...keptSections(plan, kept), special('MID'),
    ...(plan.cursorLine ? [text(plan.cursorLine)] : []),
  ];
}

function repositoryOf(plan: PromptPlan): NonNullable<PromptPlan['repository']> {
  if (!plan.repository) throw new Error('repo-fim prompt without a repository header: plan it with the repo-fim layout');
  return plan.repository;
}

/** The kept chunks as `<|file_sep|>` sections, best-ranked last. */
function keptSections(plan: PromptPlan, kept: readonly number[]): Segment[] {
  return [...kept].reverse().flatMap((i): Segment[] => {
    const chunk = plan.packed[i]!;
    return [special('FILE_SEP'), { kind: 'text', text: chunk.text, ids: chunk.ids }];
  });
}

/**
 * The layout for a model: the RepoShapley format when it has the control tokens (a derived
 * pretrained model keeps its declared repository layout, or the repository layout the preference
 * names: a paired bench compares them on one model); else its repository format when its
 * vocabulary has one (and the preference allows), else plain FIM.
 */
export function chooseLayout(info: ModelInfo, preference: LayoutPreference = 'auto'): PromptLayout {
  if (info.hasControlTokens && info.declaredLayout) {
    if (preference === 'repo-fim-pack-last') return repoFimPackLastControlLayout;
    const lineMiddle = preference === 'repo-fim-line' || (preference !== 'repo-fim' && info.declaredLayout === 'repo-fim-line');
    return lineMiddle ? repoFimLineControlLayout : repoFimControlLayout;
  }
  if (info.hasControlTokens) return reposhapleyLayout(info.echoLines);
  const hasRepoFormat = info.special.repoName !== undefined && info.special.fileSeparator !== undefined;
  if (preference === 'repo-fim-line' && hasRepoFormat) return repoFimLineLayout;
  if (preference === 'repo-fim-pack-last' && hasRepoFormat) return repoFimPackLastLayout;
  if (preference !== 'plain-fim' && hasRepoFormat) return repoFimLayout;
  return plainFimLayout;
}

/** A layout by name (tests, the bench, the labeler); servers use {@link chooseLayout}. */
export function layoutByName(name: LayoutName, echoLines = 0): PromptLayout {
  if (name === 'reposhapley') return reposhapleyLayout(echoLines);
  if (name === 'repo-fim-line') return repoFimLineLayout;
  if (name === 'repo-fim-pack-last') return repoFimPackLastLayout;
  return name === 'repo-fim' ? repoFimLayout : plainFimLayout;
}

function tokenized(value: string, tokenizer: LineTokenizer): TokenizedText {
  return { text: value, ids: tokenizer.text(value) };
}

const text = (t: TokenizedText): Segment => ({ kind: 'text', text: t.text, ids: t.ids });

