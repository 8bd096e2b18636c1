/**
 * The composition root: the real CompletionEngine, made of the workspace (engineWorkspace.ts:
 * documents, index, retrieval), the models (engineModels.ts: loading, the model lock, pulls,
 * sessions) and the pipeline (pipeline.ts), with the control decisions kept per line and the
 * traces of recent completions. The LSP scheduler only debounces and supersedes; the order in
 * which completions reach the model is the model lock's.
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CompletionTrace, PullModelResult, TraceModel } from '../../../shared/messages.js';
import { QUICK_FIRST_BUDGETS, type CompletionSettings, type PromptBudgets, type SettingsPatch } from '../../../shared/settings.js';
import { DecisionCache } from '../control/decisionCache.js';
import type { DocumentEdit } from '../indexing/textEdits.js';
import { languageById } from '../languages/registry.js';
import { ModelServerError } from '../model/remote/llamaServerApi.js';
import type { Logger } from '../util/logger.js';
import { uriToPath } from '../workspace/paths.js';
import type {
  CompletionEngine, CompletionOutcome, CompletionRequest, DocumentPosition, IndexProgress, IndexStats, ModelPullProgress, ModelStatus,
  UserNotice, WatchedFileEvent,
} from './engine.js';
import { EngineModels, type LoadedModel } from './engineModels.js';
import { EngineWorkspace } from './engineWorkspace.js';
import type { ModelPlanInputs } from './modelChoice.js';
import type { ModelLoader, ModelState } from './modelManager.js';
import type { PullFunction } from './modelPuller.js';
import type { OpenDocuments } from './openDocuments.js';
import { runPipeline, type PipelineOutput } from './pipeline.js';
import { mergeSettings, settingsFrom } from './settings.js';
import type { SpeedMeasurer } from './speedMeasurement.js';
import { UserNotices } from './userNotices.js';

export interface EngineOptions {
  logger: Logger;
  settings?: SettingsPatch;
  /** Override model loading (tests); default loads GGUF files with node-llama-cpp. */
  modelLoader?: ModelLoader;
  /** Override pulling catalog models (tests); default: the model store's pullCatalogModel. */
  pull?: PullFunction;
  /** Environment and bundled-model lookup for choosing the model (tests). */
  plan?: ModelPlanInputs;
  /** Override the speed measurement `model: auto` makes after its first pull (tests). */
  measureSpeed?: SpeedMeasurer;
}

const TRACES_KEPT = 200;

export function createCompletionEngine(options: EngineOptions): CompletionEngine {
  return new RepoShapleyEngine(options);
}

class RepoShapleyEngine implements CompletionEngine {
  settings: CompletionSettings;
  private readonly logger: Logger;
  private readonly workspace: EngineWorkspace;
  private readonly models: EngineModels;
  private readonly notices = new UserNotices();
  /** Control decisions kept while the user types on one line (control/decisionCache.ts). */
  private readonly decisions = new DecisionCache();
  private readonly traces = new LRUCache<string, CompletionTrace>({ max: TRACES_KEPT });
  private latestTraceId?: string;
  /** The background prefill in flight, if any: a completion request aborts it. */
  private prefilling?: AbortController;
  private disposed = false;

  constructor(options: EngineOptions) {
    this.logger = options.logger;
    this.settings = settingsFrom(options.settings);
    this.workspace = new EngineWorkspace(this.settings, options.logger);
    this.models = new EngineModels({
      settings: () => this.settings, logger: options.logger, notices: this.notices, loader: options.modelLoader, pull: options.pull, plan: options.plan,
      ...(options.measureSpeed ? { measureSpeed: options.measureSpeed } : {}),
    });
  }

  get documents(): OpenDocuments {
    return this.workspace.documents;
  }

  get indexVersion(): number {
    return this.workspace.index.version;
  }

  async indexWorkspace(roots: string[], onProgress: (p: IndexProgress) => void, signal?: AbortSignal): Promise<IndexStats> {
    // Load the model while indexing (the host reads the file, this process parses): a first
    // request that comes during or after a long index then finds the model loaded or loading,
    // instead of starting the load itself. A missing model is reported while the user is still
    // reading the indexing status.
    if (this.settings.enabled) void this.warmModel();
    return this.workspace.indexRoots(roots, onProgress, signal);
  }

  openDocument(uri: string, text: string, version: number, editorLanguageId?: string): void {
    this.workspace.openDocument(uri, text, version, editorLanguageId);
  }

  changeDocument(uri: string, edits: DocumentEdit[], version: number): boolean {
    return this.workspace.changeDocument(uri, edits, version);
  }

  closeDocument(uri: string): void {
    this.workspace.closeDocument(uri);
  }

  filesChanged(events: WatchedFileEvent[]): Promise<void> {
    return this.workspace.filesChanged(events);
  }

  async updateSettings(patch: SettingsPatch): Promise<void> {
    this.settings = mergeSettings(this.settings, patch);
    if (this.settings.enabled) void this.warmModel();
  }

  /** Load the model in the background so the first completion does not pay for it. */
  warmModel(): Promise<ModelState> {
    return this.models.warm();
  }

  modelToPull(name: string | undefined): string {
    return this.models.modelToPull(name);
  }

  pullModel(name: string | undefined, onProgress: (progress: ModelPullProgress) => void, signal: AbortSignal): Promise<PullModelResult> {
    return this.models.pull(name, onProgress, signal);
  }

  async complete(request: CompletionRequest, signal: AbortSignal): Promise<CompletionOutcome> {
    if (!this.settings.enabled) return { kind: 'disabled' };
    const document = this.documents.get(request.uri);
    if (!document) return { kind: 'unknown-document', message: `${request.uri} is not open` };
    if (document.languageId && !this.settings.languages[document.languageId]) {
      return { kind: 'disabled', message: `completions in ${document.languageId} files are off (setting languages.${document.languageId})` };
    }
    // A real request goes first: the prefill stops within one evaluation chunk and leaves what it
    // evaluated in the cache.
    this.prefilling?.abort();
    const asked = performance.now();
    const acquired = await this.models.acquire(signal);
    if (acquired.kind !== 'ok') return acquired;
    const waitedMs = performance.now() - asked;
    // This request waited for the model to load (a cold start): a short prompt answers it now.
    const quick = this.settings.quickFirstAnswer && acquired.state.loadedAt >= asked;
    try {
      const outcome = await this.completeWithModel(request, document.text, acquired.state, signal, waitedMs, quick);
      this.logCompletion(request, outcome, waitedMs, performance.now() - asked);
      if (quick && outcome.kind === 'ok') this.readFullPromptAfter(request);
      return outcome;
    } catch (error) {
      // An abort mid-decision surfaces as the signal's reason: a cancellation, not a failure.
      if (signal.aborted) {
        this.logCompletion(request, { kind: 'cancelled' }, waitedMs, performance.now() - asked);
        return { kind: 'cancelled' };
      }
      return this.completionFailed(error, acquired.state);
    } finally {
      acquired.release();
    }
  }

  async prefill(position: DocumentPosition): Promise<void> {
    const languageId = this.documents.get(position.uri)?.languageId;
    if (!this.settings.enabled || !this.settings.backgroundPrefill || this.disposed || !this.documents.has(position.uri)) return;
    if (languageId && !this.settings.languages[languageId]) return;
    await this.prefillInBackground(position, `prefill at ${position.uri}:${position.line + 1}`);
  }

  trace(traceId?: string): CompletionTrace | undefined {
    const id = traceId ?? this.latestTraceId;
    return id === undefined ? undefined : this.traces.get(id);
  }

  onNotice(listener: (notice: UserNotice) => void): void {
    this.notices.onNotice(listener);
  }

  onModelStatus(listener: (status: ModelStatus) => void): void {
    this.models.onStatus(listener);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.models.dispose();
    this.workspace.dispose();
  }

  /**
   * The pipeline at the cursor with one token generated and nothing recorded: the decisions land
   * in the decision cache and the prompt in the session's KV cache, where the request that follows
   * finds them. It queues behind real requests on the model lock like any other.
   */
  private async prefillNow(position: DocumentPosition, signal: AbortSignal): Promise<void> {
    const acquired = await this.models.acquire(signal);
    if (acquired.kind !== 'ok') return;
    try {
      const document = this.documents.get(position.uri);
      if (!document || signal.aborted) return;
      const started = performance.now();
      await this.runPipelineAt({ uri: position.uri, line: position.line, character: position.character, trigger: 'automatic' },
        document.text, acquired.state, signal, { prefillOnly: true });
      this.logger.debug(`prefilled ${position.uri}:${position.line + 1} in ${Math.round(performance.now() - started)} ms${signal.aborted ? ' (stopped by a request)' : ''}`);
    } finally {
      acquired.release();
    }
  }

  /**
   * After a quick first answer, the full prompt at the same place is read in the background (the
   * prefill's path, which the next request stops), so the next keystroke there finds it cached.
   */
  private readFullPromptAfter(request: CompletionRequest): void {
    const position = { uri: request.uri, line: request.line, character: request.character };
    void this.prefillInBackground(position, 'reading the full prompt after the first answer');
  }

  /** Prefills at `position` as the one prefill running; a real request aborts it (see complete). */
  private async prefillInBackground(position: DocumentPosition, what: string): Promise<void> {
    this.prefilling?.abort();
    const controller = new AbortController();
    this.prefilling = controller;
    await this.prefillNow(position, controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.logger.debug(`${what} failed: ${String(error)}`);
      })
      .finally(() => {
        if (this.prefilling === controller) this.prefilling = undefined;
      });
  }

  private async completeWithModel(
    request: CompletionRequest, text: string, loaded: LoadedModel, signal: AbortSignal, waitMs: number, quick: boolean,
  ): Promise<CompletionOutcome> {
    const output = await this.runPipelineAt(request, text, loaded, signal, quick ? { budgets: QUICK_FIRST_BUDGETS } : {});
    if (output.trace.outcome === 'cancelled') return { kind: 'cancelled' };
    const traceId = randomUUID();
    const traced: TraceModel = { label: loaded.label, layout: loaded.layout.name, fallback: loaded.isFallback, ...(loaded.chosenBy ? { chosenBy: loaded.chosenBy } : {}) };
    const quickNote = quick ? { quickFirstAnswer: true } : {};
    this.traces.set(traceId, { ...output.trace, traceId, cached: false, model: traced, timings: { waitMs, ...output.trace.timings }, ...quickNote });
    this.latestTraceId = traceId;
    const { totalMs, sharedWaitMs } = output.trace.timings;
    return { kind: 'ok', text: output.text, traceId, cached: false, latencyMs: totalMs, ...(sharedWaitMs ? { sharedWaitMs } : {}) };
  }

  /** A completion that threw (not a cancellation): an empty answer, the cause logged, a dead model replaced. */
  private completionFailed(error: unknown, loaded: LoadedModel): CompletionOutcome {
    if (error instanceof ModelServerError) return this.models.serverDown(error);
    this.logger.error(`completion failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    // A model whose process died is replaced now, so the status and the notice say so at once.
    if (loaded.model.failure !== undefined) void this.warmModel();
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }

  /** One debug line per completion: where the time went, for `--server-log` of the bench. */
  private logCompletion(request: CompletionRequest, outcome: CompletionOutcome, waitedMs: number, totalMs: number): void {
    const trace = outcome.kind === 'ok' ? this.traces.get(outcome.traceId) : undefined;
    const detail = trace
      ? `; prompt ${trace.tokens.prompt}, reused ${trace.tokens.reused}, generated ${trace.tokens.generated}, ` +
        `decision ${Math.round(trace.timings.decisionMs)} ms, generation ${Math.round(trace.timings.generationMs)} ms`
      : '';
    this.logger.debug(`completion ${request.uri}:${request.line + 1}:${request.character + 1} ${outcome.kind} in ${Math.round(totalMs)} ms ` +
      `(${Math.round(waitedMs)} ms waiting for the model${detail})`);
  }

  private async runPipelineAt(
    request: CompletionRequest, text: string, loaded: LoadedModel, signal: AbortSignal, options: { prefillOnly?: boolean; budgets?: PromptBudgets } = {},
  ): Promise<PipelineOutput> {
    const { model, layout } = loaded;
    const absPath = uriToPath(request.uri);
    await this.workspace.settleFor(absPath);
    const languageId = this.documents.get(request.uri)?.languageId;
    const settings = options.budgets ? { ...this.settings, budgets: options.budgets } : this.settings;
    return runPipeline({
      uri: request.uri, text, relPath: this.workspace.relPathOf(absPath), repoName: this.workspace.repoNameOf(absPath), layout,
      language: languageId === undefined ? undefined : languageById(languageId),
      position: { line: request.line, character: request.character }, mode: request.mode,
      settings, model, session: await this.models.sessionFor(model), tokenizer: this.models.tokenizerFor(model),
      // Other budgets, another layout or other retrieval settings give another prompt: what was kept under them does not carry over.
      decisions: this.decisions.scope(request.uri, request.line, this.lineScopeKey(model.info.path, layout.name, settings.budgets), settings.keepCandidatesNearLines),
      prefillOnly: options.prefillOnly,
    }, { index: this.workspace.index, retriever: this.workspace.retriever, logger: this.logger }, signal);
  }

  private lineScopeKey(modelPath: string, layoutName: string, budgets: PromptBudgets): string {
    const { topK, windowLines } = this.settings;
    return `${modelPath}|${layoutName}|${JSON.stringify(budgets)}|${topK}|${windowLines}`;
  }
}
