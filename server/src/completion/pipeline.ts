/**
 * One completion, stage by stage: split at the cursor -> fit the in-file context -> run the
 * context-control policy (which retrieves lazily) -> post-process -> trace.
 */
import path from 'node:path';
import type { CompletionTrace, TraceCandidate } from '../../../shared/messages.js';
import { FALLBACK_NEED_THRESHOLD, type CompletionSettings } from '../../../shared/settings.js';
import type { ScopedDecisions } from '../control/decisionCache.js';
import { lineRetrieval, linePrefixOf, retrievalSources, sourcesUnchanged, stillHolds } from './lineRetrieval.js';
import { resolvePolicy } from '../control/resolvePolicy.js';
import type { PolicyContext, PolicyResult } from '../control/types.js';
import type { IndexView } from '../indexing/types.js';
import type { CodeLanguage } from '../languages/language.js';
import type { CompletionModel, ModelSession } from '../model/completionModel.js';
import type { PackedChunk } from '../prompt/budget.js';
import { fitBudgetsToContext } from '../prompt/budget.js';
import type { PromptLayout } from '../prompt/layouts.js';
import type { LineTokenizer } from '../prompt/lineTokenizer.js';
import { renderSegments, toTokenIds } from '../prompt/segments.js';
import { shownLinesOf, type PromptPlan } from '../prompt/sequences.js';
import type { Retriever } from '../retrieval/retriever.js';
import type { Candidate, RetrievalQuery } from '../retrieval/types.js';
import type { Logger } from '../util/logger.js';
import { uriToPath } from '../workspace/paths.js';
import { balanceWithSuffix } from './brackets.js';
import { MeteredSession } from './meteredSession.js';
import { blockCompletion, isBlockPosition, splitAtCursor, trimSuffixOverlap, type CursorSplit } from './cursor.js';

/** Multi-line completions stop after this many lines even if the model goes on. */
const MAX_BLOCK_LINES = 15;

export interface PipelineInput {
  uri: string;
  text: string;
  /** Workspace-relative path when the document is inside a root. */
  relPath?: string;
  /** The document's language; undefined for one the server has no rules for (completed from its text alone). */
  language?: CodeLanguage;
  /** The workspace folder's name, for layouts that name the repository. */
  repoName: string;
  position: { line: number; character: number };
  /** Force single-line or block completions; default decides from the cursor. */
  mode?: 'line' | 'block' | 'auto';
  settings: CompletionSettings;
  model: CompletionModel;
  /** The model's prompt layout, chosen once when it loaded. */
  layout: PromptLayout;
  session: ModelSession;
  tokenizer: LineTokenizer;
  /** Decisions already made on this line, reused while the user types on it. */
  decisions?: ScopedDecisions;
  /**
   * A background prefill: the same prompt, one token generated (the cheapest way through every
   * session kind to leave the prompt in its KV cache); the caller discards the output.
   */
  prefillOnly?: boolean;
}

export interface PipelineDeps {
  index: IndexView;
  retriever: Retriever;
  logger: Logger;
}

export interface PipelineOutput {
  text: string;
  trace: Omit<CompletionTrace, 'traceId' | 'cached'>;
}

export async function runPipeline(input: PipelineInput, deps: PipelineDeps, signal: AbortSignal): Promise<PipelineOutput> {
  const started = performance.now();
  const split = splitAtCursor(input.text, input.position);
  const { settings, model } = input;
  const policy = resolvePolicy(settings.policy, model.info, deps.logger, input.language?.id);
  let retrievalMs = 0;
  const session = new MeteredSession(input.session, model.info.special);
  const context = await buildContext({ ...input, session }, deps, split, signal, (ms) => (retrievalMs += ms));
  const promptMs = performance.now() - started;
  const result = await policy.run(context);
  const text = postProcess(result.generated.text, split, isMultiLine(input, split), input.language);
  const trace = buildTrace(input, deps, context.inFile, result, policy.name, text, signal);
  trace.tokens.evaluated = { ...session.evaluated };
  if (result.needProbability !== undefined) trace.needThreshold = context.needThreshold;
  trace.timings = {
    retrievalMs, promptMs, decisionMs: result.decisionMs, selectionMs: result.selectionMs,
    generationMs: result.generationMs, totalMs: performance.now() - started,
    // Under a millisecond is the queue's own bookkeeping, not a wait for another window.
    ...(session.sharedWaitMs !== undefined && session.sharedWaitMs >= 1 ? { sharedWaitMs: session.sharedWaitMs } : {}),
  };
  return { text, trace };
}

function isMultiLine(input: PipelineInput, split: CursorSplit): boolean {
  if (input.mode === 'block') return true;
  return input.mode !== 'line' && input.language !== undefined && isBlockPosition(split, input.language.editing.opensBlock);
}

/**
 * The policy's context. Planning and packing tokenize through `tokenizer.prepared`: with a model
 * server, the lines a prompt needs are tokenized there in a batch first (prompt/lineTokenizer.ts).
 */
async function buildContext(
  input: PipelineInput, deps: PipelineDeps, split: CursorSplit, signal: AbortSignal, addRetrievalMs: (ms: number) => void,
): Promise<PolicyContext> {
  const { settings, model, tokenizer, layout } = input;
  const budgets = fitBudgetsToContext(settings.budgets, model.info.contextSize, settings.maxTokens, settings.topK);
  const plan = await tokenizer.prepared(() => layout.planInFile(
    { prefix: split.prefix, suffix: split.suffix, path: input.relPath ?? documentName(input.uri), repoName: input.repoName },
    budgets, tokenizer,
  ), signal);
  let retrieved: { candidates: Candidate[]; packed: PackedChunk[] } | undefined;
  return {
    layout, session: input.session, special: model.info.special, inFile: plan, signal, decisions: input.decisions,
    needThreshold: settings.needThreshold ?? model.info.needThreshold ?? FALLBACK_NEED_THRESHOLD,
    triggerSoftmax: model.info.triggerSoftmax,
    generation: { maxTokens: input.prefillOnly ? 1 : settings.maxTokens, singleLine: !isMultiLine(input, split) },
    toIds: (segments) => toTokenIds(segments, model.info.special),
    async retrieveAndPack() {
      if (retrieved) return retrieved;
      const t0 = performance.now();
      const linePrefix = linePrefixOf(split.prefix);
      const kept = settings.keepCandidatesWhileTyping ? input.decisions?.retrieval() : undefined;
      const nearby = kept ? undefined : input.decisions?.nearbyRetrieval();
      if (kept && stillHolds(kept, linePrefix, deps.index)) {
        retrieved = { candidates: kept.candidates, packed: kept.packed };
      } else if (nearby && sourcesUnchanged(nearby, deps.index)) {
        // The cursor came from a line close by: its candidates, as if retrieved here (the chunks
        // lead the prompt, so the same ones keep its cache; keepCandidatesNearLines).
        retrieved = { candidates: nearby.candidates, packed: nearby.packed };
        input.decisions?.rememberRetrieval({ ...nearby, linePrefix });
      } else {
        const candidates = retrieve(input, deps, split, shownLinesOf(plan));
        const sources = retrievalSources(candidates, deps.index, input.relPath);
        const packed = await tokenizer.prepared(() => layout.pack(candidates, budgets, tokenizer), signal);
        input.decisions?.rememberRetrieval(lineRetrieval(linePrefix, candidates, packed, sources, input.position.line));
        retrieved = { candidates, packed };
      }
      addRetrievalMs(performance.now() - t0);
      return retrieved;
    },
  };
}

function retrieve(input: PipelineInput, deps: PipelineDeps, split: CursorSplit, shownLines: RetrievalQuery['shownLines']): Candidate[] {
  return deps.retriever.retrieve(
    { file: input.relPath ? deps.index.file(input.relPath) : undefined, relPath: input.relPath, keywords: input.language?.symbols.keywords,
      prefixLines: split.prefix.split('\n'), suffixText: split.suffix, cursorLine: split.line, shownLines },
    { topK: input.settings.topK, windowLines: input.settings.windowLines },
  );
}

/** A document outside every workspace root is named by its file name (`untitled` when it has none). */
function documentName(uri: string): string {
  const file = uriToPath(uri);
  return file ? path.basename(file) : 'untitled';
}

function postProcess(raw: string, split: CursorSplit, multiLine: boolean, language: CodeLanguage | undefined): string {
  let text = multiLine ? blockCompletion(raw, split, MAX_BLOCK_LINES, language?.editing.closesBlocks ?? false) : firstLine(raw, split, language);
  text = trimSuffixOverlap(text, split.suffix);
  return split.usesCrlf ? text.replace(/\n/g, '\r\n') : text;
}

/** A single-line completion: its first line, its brackets balanced against the suffix where the language's lexing is known. */
function firstLine(raw: string, split: CursorSplit, language: CodeLanguage | undefined): string {
  const line = raw.split('\n', 1)[0]!;
  return language ? balanceWithSuffix(line, split.prefix, split.suffix, language.editing) : line;
}

function buildTrace(
  input: PipelineInput, deps: PipelineDeps, plan: PromptPlan, result: PolicyResult,
  effectivePolicy: PipelineOutput['trace']['effectivePolicy'], text: string, signal: AbortSignal,
): PipelineOutput['trace'] {
  const chunkTokens = result.kept.reduce((sum, i) => sum + result.packed[i]!.ids.length + 2, 0);
  return {
    uri: input.uri, line: input.position.line, character: input.position.character,
    policy: input.settings.policy, effectivePolicy, ...(input.language ? { language: input.language.id } : {}), decision: result.decision, needProbability: result.needProbability,
    candidates: traceCandidates(result), completion: text, stoppedBy: result.generated.stoppedBy,
    outcome: signal.aborted || result.generated.stoppedBy === 'aborted' ? 'cancelled' : 'ok',
    tokens: {
      prompt: result.promptTokens, prefix: plan.prefix.ids.length, suffix: plan.suffix.ids.length,
      chunks: chunkTokens, generated: result.generated.tokens.length,
      reused: input.session.lastReusedTokens,
    },
    timings: { retrievalMs: 0, promptMs: 0, decisionMs: 0, selectionMs: 0, generationMs: 0, totalMs: 0 },
    indexVersion: deps.index.version,
    prompt: input.settings.tracePrompt ? renderSegments(result.prompt) : undefined,
  };
}

function traceCandidates(result: PolicyResult): TraceCandidate[] {
  const packedByCandidate = new Map(result.packed.map((p, i) => [p.candidateIndex, i]));
  return result.candidates.map((candidate, index) => {
    const packedIndex = packedByCandidate.get(index);
    const traced: TraceCandidate = {
      index: index + 1, relPath: candidate.chunk.relPath, startLine: candidate.chunk.startLine,
      endLine: candidate.chunk.endLine, kind: candidate.chunk.kind, sources: [...candidate.sources],
      score: candidate.score, kept: packedIndex !== undefined && result.kept.includes(packedIndex),
      keepProbability: packedIndex === undefined ? undefined : result.keepProbabilities?.[packedIndex],
    };
    if (candidate.lists) traced.lists = candidate.lists.map((d) => ({ ...d }));
    return traced;
  });
}
