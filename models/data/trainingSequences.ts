/**
 * Training sequences built by the server's own modules, so they are byte-for-byte the prompts
 * inference evaluates (STYLE: the prompt format lives in exactly one module):
 *   fim   <PFX>Xp<SFX>Xs<DONE><MID> Y <EOT>                      (no-retrieval format, §3.4)
 *   rag   <PFX>Xp<SFX>Xs<NEED><C_1>cc_1</C_1>…<DONE><MID> Y <EOT>  (generation format, all top-K kept:
 *         what the `full` policy sends)
 *   lm    plain code, files joined by <EOT>, cut into context-sized windows
 * The steps mirror completion/pipeline.ts: the document buffer (the file without the target)
 * replaces the file in the index, the cursor splits it, budgets are fitted to the model's
 * context, the query and retrieval are the pipeline's, and chunks are packed the same way.
 * Loss mask: 1 on Y and, for block targets, its <EOT> (fim, rag); 1 everywhere (lm). A Y longer
 * than maxTokens is cut after its last whole line that fits and has no <EOT>: dropping such
 * targets left mostly one-line block bodies, and the model learned to end every block after one
 * line. A line or API target's <EOT> is in the sequence but is no target: such a Y always ends
 * where the file's line ends, where the server's line mode stops by itself, so all that <EOT>
 * taught was that a middle is one line long, and the model ended blocks after their first line.
 */
import type { CompletionSettings } from '../../shared/settings.js';
import { splitAtCursor } from '../../server/src/completion/cursor.js';
import type { WorkspaceIndex } from '../../server/src/indexing/workspaceIndex.js';
import type { SpecialTokenIds } from '../../server/src/model/completionModel.js';
import { fitBudgetsToContext, fitSuffix, type TokenizedText } from '../../server/src/prompt/budget.js';
import { layoutByName, type PromptLayout } from '../../server/src/prompt/layouts.js';
import type { LineTokenizer } from '../../server/src/prompt/lineTokenizer.js';
import { toTokenIds, type Segment } from '../../server/src/prompt/segments.js';
import { generationSegments, noRetrievalSegments, shownLinesOf, withTarget, type PromptPlan } from '../../server/src/prompt/sequences.js';
import type { Retriever } from '../../server/src/retrieval/retriever.js';
import { identifierTokens, keywordsOf } from '../../server/src/retrieval/tokens.js';
import type { Candidate } from '../../server/src/retrieval/types.js';
import type { Target, TargetKind } from './targets.js';

export type SequenceFormat = 'fim' | 'rag' | 'lm';
const SEQUENCE_FORMATS: readonly SequenceFormat[] = ['lm', 'fim', 'rag'];

/** A comma-separated list of sequence formats (a CLI flag's value); `flag` names it in the error. */
export function parseSequenceFormats(spec: string, flag: string): Set<SequenceFormat> {
  const formats = new Set(spec.split(',').map((f) => f.trim()));
  for (const format of formats) {
    if (!SEQUENCE_FORMATS.includes(format as SequenceFormat)) throw new Error(`unknown format ${JSON.stringify(format)} in ${flag}`);
  }
  return formats as Set<SequenceFormat>;
}

export interface TrainingSequence {
  format: SequenceFormat;
  ids: number[];
  /** 1 where the token is a prediction target. */
  mask: Uint8Array;
}

/** What inference would use: the settings' budgets fitted to the model's context. */
export interface PromptSettings {
  contextSize: number;
  settings: Pick<CompletionSettings, 'budgets' | 'maxTokens' | 'topK' | 'windowLines'>;
  special: SpecialTokenIds;
  /** Prefix lines repeated after <MID> (prompt/sequences.ts); the exported GGUF records it. */
  echoLines: number;
  /**
   * The layout the model is prompted in (prompt/layouts.ts); the RepoShapley format when absent.
   * A pretrained model without the control tokens is labeled in its own format (repo-fim for
   * Qwen2.5-Coder), the bytes the server sends it.
   */
  layout?: PromptLayout;
}

export interface RepositoryTools {
  /** The repository's name as a prompt names it (`<|repo_name|>`): its folder's. */
  repositoryName: string;
  index: WorkspaceIndex;
  retriever: Retriever;
  tokenizer: LineTokenizer;
}

/**
 * The fim and rag sequences of one target (rag only when retrieval packed something: with
 * nothing packed the full policy sends the fim prompt). A target longer than inference would
 * generate (maxTokens) is cut by whole lines (`cut`); undefined when not even its first line fits.
 */
export async function targetSequences(
  tools: RepositoryTools, prompt: PromptSettings, absPath: string, fileText: string, target: Target,
): Promise<{ fim: TrainingSequence; rag?: TrainingSequence; candidates: number; cut: boolean; evidenceOnly: string[] } | undefined> {
  const prepared = await prepareTarget(tools, prompt, absPath, fileText, target, { cutLongTargets: true });
  if (!prepared) return undefined;
  const { plan, y, complete } = prepared;
  const ends = complete ? (isEndOfTextSupervised(target.kind) ? 'supervised' : 'context') : 'none';
  const fim = supervised('fim', withTarget(noRetrievalSegments(plan), y, complete), y.ids.length, ends, prompt.special);
  const rag = plan.packed.length === 0 ? undefined
    : supervised('rag', withTarget(generationSegments(plan, plan.packed.map((_, i) => i)), y, complete), y.ids.length, ends, prompt.special);
  return { fim, rag, candidates: plan.packed.length, cut: !complete, evidenceOnly: evidenceOnlyIdentifiers(plan, y.text, keywordsOf(absPath)) };
}

/**
 * The identifiers of Y that only the cross-file evidence holds: in a packed chunk's body, nowhere
 * in the fitted prefix or suffix. A model can write these only by copying them from a chunk,
 * which is what `full` must do better than `none` (issue 4). Chunk headers (`# relPath:line`)
 * are left out: a path's words are not evidence of an identifier.
 */
export function evidenceOnlyIdentifiers(plan: Pick<PromptPlan, 'prefix' | 'suffix' | 'packed'>, y: string, keywords: ReadonlySet<string>): string[] {
  const tokens = (text: string) => identifierTokens(text, keywords);
  const inFile = new Set([...tokens(plan.prefix.text), ...tokens(plan.suffix.text)]);
  const inChunks = new Set(plan.packed.flatMap((chunk) => tokens(chunk.text.slice(chunk.text.indexOf('\n') + 1))));
  return [...new Set(tokens(y))].filter((id) => inChunks.has(id) && !inFile.has(id));
}

/** Whether a Y of these ids is one inference could produce: not empty, at most maxTokens. */
export function targetFits(ids: readonly number[], maxTokens: number): boolean {
  return ids.length > 0 && ids.length <= maxTokens;
}

/**
 * Whether a complete Y's <EOT> is a prediction target: only where a block ends is the model's
 * to find. A line or API target ends where its line ends, where the server's line mode stops by
 * itself; supervising that <EOT> taught only that a middle is one line long (docs/model-pipeline.md).
 */
export function isEndOfTextSupervised(kind: TargetKind): boolean {
  return kind === 'block';
}

/** A target as inference would see it: the fitted plan with the packed top-K candidates, and Y. */
export interface PreparedTarget {
  plan: PromptPlan;
  candidates: Candidate[];
  y: TokenizedText;
  /** False when Y was cut to maxTokens (only with `cutLongTargets`). */
  complete: boolean;
}

/**
 * The pipeline's steps for one target: the document buffer (the file without the target)
 * replaces the file in the index, the cursor splits it, budgets are fitted to the context, and
 * retrieval and packing run as the server runs them. Undefined when Y is empty or longer than
 * inference would generate (maxTokens); with `cutLongTargets`, a longer Y is cut to its first
 * whole lines that fit instead (undefined when none does).
 */
export async function prepareTarget(
  tools: RepositoryTools, prompt: PromptSettings, absPath: string, fileText: string, target: Target,
  options: { cutLongTargets?: boolean } = {},
): Promise<PreparedTarget | undefined> {
  const { settings } = prompt;
  const whole: TokenizedText = { text: target.text, ids: tools.tokenizer.text(target.text) };
  const complete = whole.ids.length <= settings.maxTokens;
  const y = complete || !options.cutLongTargets ? whole : fitSuffix(target.text, settings.maxTokens, tools.tokenizer);
  if (!targetFits(y.ids, settings.maxTokens)) return undefined;
  const buffer = fileText.slice(0, target.start) + fileText.slice(target.end);
  const split = splitAtCursor(buffer, { line: target.line, character: target.character });
  const budgets = fitBudgetsToContext(settings.budgets, prompt.contextSize, settings.maxTokens, settings.topK);
  const layout = prompt.layout ?? layoutByName('reposhapley', prompt.echoLines);
  tools.index.openDocument(absPath, buffer);
  try {
    const inFile = { prefix: split.prefix, suffix: split.suffix, path: target.relPath, repoName: tools.repositoryName };
    const plan = layout.planInFile(inFile, budgets, tools.tokenizer);
    const candidates = tools.retriever.retrieve(
      // As the server retrieves (completion/pipeline.ts): nothing of the lines the prompt shows.
      { file: tools.index.file(target.relPath), relPath: target.relPath, prefixLines: split.prefix.split('\n'), suffixText: split.suffix, cursorLine: split.line,
        shownLines: shownLinesOf(plan) },
      { topK: settings.topK, windowLines: settings.windowLines },
    );
    const packed = layout.pack(candidates, budgets, tools.tokenizer);
    return { plan: { ...plan, packed }, candidates, y, complete };
  } finally {
    await tools.index.closeDocument(absPath);
  }
}

/** How a sequence ends after Y: with an <EOT> that is a target, one that is only context, or none. */
type Ending = 'supervised' | 'context' | 'none';

/** Ids of the segments with Y's `yTokens` (and a supervised <EOT>) marked. */
function supervised(format: SequenceFormat, segments: Segment[], yTokens: number, ending: Ending, special: SpecialTokenIds): TrainingSequence {
  const ids = toTokenIds(segments, special);
  const mask = new Uint8Array(ids.length);
  const end = ending === 'context' ? ids.length - 1 : ids.length;
  const supervisedTokens = yTokens + (ending === 'supervised' ? 1 : 0);
  mask.fill(1, end - supervisedTokens, end);
  return { format, ids, mask };
}

/**
 * Language-modeling windows over files: each file's ids (line by line, as prompts), then <EOT>,
 * concatenated and cut into windows of `windowTokens`; the last partial window is kept when it
 * is at least half full. Each window names the file it starts in.
 */
export function lmWindows(
  files: Iterable<{ path: string; text: string }>, tokenizer: LineTokenizer, endOfText: number, windowTokens: number,
): Array<TrainingSequence & { path: string }> {
  const windows: Array<TrainingSequence & { path: string }> = [];
  let current: number[] = [];
  let startPath = '';
  const flush = () => {
    windows.push({ format: 'lm', ids: current, mask: new Uint8Array(current.length).fill(1), path: startPath });
    current = [];
  };
  for (const file of files) {
    for (const id of [...tokenizer.text(file.text), endOfText]) {
      if (current.length === 0) startPath = file.path;
      current.push(id);
      if (current.length === windowTokens) flush();
    }
  }
  if (current.length >= windowTokens / 2) flush();
  return windows;
}
