/**
 * The real CompletionEngine: open documents + workspace index + lexical index + retriever +
 * model manager + pipeline. It owns the server's one document store (openDocuments.ts) and its
 * one lock: one completion runs the model at a time (2 cores; a KV cache per session), in the
 * order requests came; a request aborted while it waits leaves the queue and never reaches the
 * model. The LSP scheduler only debounces and supersedes. The same lock keeps a model that a
 * settings change replaced alive until the completion using it is done.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { CompletionTrace, PullModelResult, TraceModel } from '../../../shared/messages.js';
import type { CompletionSettings, SettingsPatch } from '../../../shared/settings.js';
import { WorkspaceIndex } from '../indexing/workspaceIndex.js';
import type { CompletionModel, ModelSession } from '../model/completionModel.js';
import { LineTokenizer } from '../prompt/lineTokenizer.js';
import { LexicalIndex } from '../retrieval/lexicalIndex.js';
import { Retriever } from '../retrieval/retriever.js';
import type { Logger } from '../util/logger.js';
import type {
  CompletionEngine, CompletionOutcome, CompletionRequest, DocumentPosition, DocumentEdit, IndexProgress, IndexStats, ModelPullProgress, ModelStatus,
  UserNotice, WatchedFileEvent,
} from './engine.js';
import { planModel, type ModelPlanInputs } from './modelChoice.js';
import { ModelManager, type ModelLoader, type ModelState } from './modelManager.js';
import { ModelPuller, type PullFunction } from './modelPuller.js';
import { uriToPath } from '../workspace/paths.js';
import { OpenDocuments } from './openDocuments.js';
import { DecisionCache } from '../control/decisionCache.js';
import { runPipeline, type PipelineOutput } from './pipeline.js';
import { mergeSettings, settingsFrom } from './settings.js';
import { Mutex } from '../util/mutex.js';
import { ModelServerError } from '../model/remote/llamaServerApi.js';

export interface EngineOptions {
  logger: Logger;
  settings?: SettingsPatch;
  /** Override model loading (tests); default loads GGUF files with node-llama-cpp. */
  modelLoader?: ModelLoader;
  /** Override pulling catalog models (tests); default: the model store's pullCatalogModel. */
  pull?: PullFunction;
  /** Environment and bundled-model lookup for choosing the model (tests). */
  plan?: ModelPlanInputs;
}

const TRACES_KEPT = 200;

/**
 * How stale an edited buffer's index entry may get while the user types: re-indexing a large
 * file on every keystroke made most of the server's garbage (docs/reliability.md, memory).
 */
const BUFFER_INDEX_DELAY_MS = 300;

type LoadedModel = Extract<ModelState, { kind: 'ok' }>;

/** A model taken for one completion, with the model lock held until `release`. */
type AcquiredModel =
  | { kind: 'ok'; state: LoadedModel; release: () => void }
  | { kind: 'no-model'; message: string }
  | { kind: 'cancelled' };

export function createCompletionEngine(options: EngineOptions): CompletionEngine {
  return new RepoShapleyEngine(options);
}

/**
 * llama.cpp runs in a child process (model/childProcess/): a GGML_ASSERT there aborts that
 * process, and the server says so and carries on with the fallback.
 */
const loadInModelHost: ModelLoader = async (options, logger) => {
  if (options.server) {
    const { loadRemoteModel } = await import('../model/remote/remoteModel.js');
    return loadRemoteModel({ url: options.path, ...options.server }, logger);
  }
  const { loadModelInChildProcess } = await import('../model/childProcess/childProcessModel.js');
  return loadModelInChildProcess(options, logger);
};

class RepoShapleyEngine implements CompletionEngine {
  settings: CompletionSettings;
  private readonly logger: Logger;
  private readonly index: WorkspaceIndex;
  private readonly lexical: LexicalIndex;
  private readonly retriever: Retriever;
  /** Control decisions kept while the user types on one line (control/decisionCache.ts). */
  private readonly decisions = new DecisionCache();
  private readonly models: ModelManager;
  readonly documents = new OpenDocuments();
  private readonly traces = new LRUCache<string, CompletionTrace>({ max: TRACES_KEPT });
  private readonly modelLock = new Mutex();
  private readonly noticeListeners: ((notice: UserNotice) => void)[] = [];
  private readonly noticesSent = new Set<string>();
  private readonly modelStatusListeners: ((status: ModelStatus) => void)[] = [];
  private lastModelStatus?: string;
  private readonly puller: ModelPuller;
  private readonly planInputs: ModelPlanInputs;
  private readonly sessions = new WeakMap<CompletionModel, Promise<ModelSession>>();
  private readonly tokenizers = new WeakMap<CompletionModel, LineTokenizer>();
  private latestTraceId?: string;
  /**
   * Closed documents whose index entries are being restored from disk. A completion waits for
   * them, so what it retrieves does not depend on how fast the last close was (the bench saw
   * other candidates in 3 of 100 tasks between two runs before this).
   */
  private readonly pendingCloses = new Set<Promise<unknown>>();
  /** The background prefill in flight, if any: a completion request aborts it. */
  private prefilling?: AbortController;
  /** Workspace roots as last indexed; the repository format names the one holding a document. */
  private roots: string[] = [];
  private disposed = false;

  constructor(options: EngineOptions) {
    this.logger = options.logger;
    this.settings = settingsFrom(options.settings);
    this.index = new WorkspaceIndex({
      logger: options.logger, windowLines: this.settings.windowLines, windowStride: this.settings.windowStride,
      bufferIndexDelayMs: BUFFER_INDEX_DELAY_MS,
      maxFiles: this.settings.indexMaxFiles, maxBytes: this.settings.indexMaxMegabytes * 1024 * 1024,
    });
    this.lexical = new LexicalIndex(this.index);
    this.index.onDidChange((changes) => this.lexical.applyChanges(changes));
    this.retriever = new Retriever(this.index, this.lexical);
    this.planInputs = options.plan ?? {};
    this.models = new ModelManager(options.modelLoader ?? loadInModelHost, options.logger, { lock: this.modelLock, plan: this.planInputs });
    this.puller = new ModelPuller(options.logger, options.pull);
  }

  get indexVersion(): number {
    return this.index.version;
  }

  async indexWorkspace(roots: string[], onProgress: (p: IndexProgress) => void, signal?: AbortSignal): Promise<IndexStats> {
    const started = performance.now();
    const resolved = roots.map((root) => path.resolve(root));
    this.roots = resolved;
    const pass = await this.index.indexRoots(resolved, { onProgress, signal });
    const stats = { ...this.index.stats(), ...(pass.bound ? { bound: pass.bound } : {}) };
    // Load the model now, so the first keystroke does not pay for it and a missing model is
    // reported while the user is still reading the "indexed" status.
    if (this.settings.enabled) void this.warmModel();
    return { roots: resolved, ...stats, wallMs: performance.now() - started, version: this.index.version };
  }

  openDocument(uri: string, text: string, version: number): void {
    const document = this.documents.open(uri, text, version);
    if (document.absPath) this.index.openDocument(document.absPath, document.text, document.lines);
  }

  changeDocument(uri: string, edits: DocumentEdit[], version: number): boolean {
    const changed = this.documents.change(uri, edits, version);
    if (!changed) return false;
    if (changed.document.absPath) this.index.applyDocumentChange(changed.document.absPath, changed.change);
    return true;
  }

  closeDocument(uri: string): void {
    const document = this.documents.close(uri);
    if (!document?.absPath) return;
    const closing: Promise<unknown> = this.index.closeDocument(document.absPath)
      .catch((error: unknown) => this.logger.error(`closing ${uri}: ${String(error)}`))
      .finally(() => this.pendingCloses.delete(closing));
    this.pendingCloses.add(closing);
  }

  async filesChanged(events: WatchedFileEvent[]): Promise<void> {
    for (const event of events) {
      const absPath = uriToPath(event.uri);
      if (!absPath) continue;
      if (event.type === 'deleted') this.index.remove(absPath);
      else await this.index.upsertFromDisk(absPath);
    }
  }

  async updateSettings(patch: SettingsPatch): Promise<void> {
    this.settings = mergeSettings(this.settings, patch);
    if (this.settings.enabled) void this.warmModel();
  }

  /** Load the model in the background so the first completion does not pay for it. */
  async warmModel(): Promise<ModelState> {
    const state = await this.models.get(this.settings);
    this.reportModel(state);
    return state;
  }

  async pullModel(name: string | undefined, onProgress: (progress: ModelPullProgress) => void, signal: AbortSignal): Promise<PullModelResult> {
    const wanted = name ?? this.settings.model;
    const pulled = await this.puller.pullModel(wanted, this.settings.modelCacheDir || undefined, onProgress, signal);
    if (pulled.kind === 'error') return { kind: 'error', code: pulled.code, message: pulled.message };
    const result = { kind: 'ok' as const, name: wanted, path: pulled.path, source: pulled.source };
    // Loaded now (the plan sees the verified file), so the answer can say completions use it.
    const selected = planModel(this.settings, this.planInputs).candidates[0]?.path === pulled.path;
    if (!selected) return { ...result, inUse: false };
    if (!this.settings.enabled || this.disposed) return { ...result, inUse: true }; // loads at the first completion
    const state = await this.warmModel();
    return { ...result, inUse: state.kind === 'ok' && !state.isFallback && state.label === wanted };
  }

  /**
   * Tells listeners the model in use and whether the one asked for can be pulled, when that
   * changed, and says once why no model, or not the one asked for, is in use.
   */
  private reportModel(state: ModelState): void {
    const offersPull = state.pullable ? { offersPull: true } : {};
    if (state.kind === 'no-model') this.notify({ severity: 'error', message: state.message, status: 'no-model', ...offersPull });
    else if (state.notice) this.notify({ severity: 'warning', message: state.notice, ...offersPull });
    const status: ModelStatus = {
      ...(state.kind === 'ok' ? { model: { label: state.label, fallback: state.isFallback } } : {}),
      ...(state.pullable ? { pullable: state.pullable } : {}),
      ...(this.settings.modelServer ? { modelServer: this.settings.modelServer } : {}),
    };
    const key = JSON.stringify(status);
    if (key === this.lastModelStatus) return;
    this.lastModelStatus = key;
    for (const listener of this.modelStatusListeners) listener(status);
  }

  async complete(request: CompletionRequest, signal: AbortSignal): Promise<CompletionOutcome> {
    if (!this.settings.enabled) return { kind: 'disabled' };
    const document = this.documents.get(request.uri);
    if (!document) return { kind: 'unknown-document', message: `${request.uri} is not open` };
    // A real request goes first: the prefill stops within one evaluation chunk and leaves what it
    // evaluated in the cache.
    this.prefilling?.abort();
    const asked = performance.now();
    const acquired = await this.acquireModel(signal);
    if (acquired.kind !== 'ok') return acquired;
    const waitedMs = performance.now() - asked;
    try {
      const outcome = await this.completeWithModel(request, document.text, acquired.state, signal);
      this.logCompletion(request, outcome, waitedMs, performance.now() - asked);
      return outcome;
    } catch (error) {
      // An abort mid-decision surfaces as the signal's reason: a cancellation, not a failure.
      if (signal.aborted) {
        this.logCompletion(request, { kind: 'cancelled' }, waitedMs, performance.now() - asked);
        return { kind: 'cancelled' };
      }
      if (error instanceof ModelServerError) return this.modelServerDown(error);
      this.logger.error(`completion failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
      // A model whose process died is replaced now, so the status and the notice say so at once.
      if (acquired.state.model.failure !== undefined) void this.warmModel();
      return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
    } finally {
      acquired.release();
    }
  }

  async prefill(position: DocumentPosition): Promise<void> {
    if (!this.settings.enabled || !this.settings.backgroundPrefill || this.disposed || !this.documents.has(position.uri)) return;
    this.prefilling?.abort();
    const controller = new AbortController();
    this.prefilling = controller;
    await this.prefillNow(position, controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.logger.debug(`prefill at ${position.uri}:${position.line + 1} failed: ${String(error)}`);
      })
      .finally(() => {
        if (this.prefilling === controller) this.prefilling = undefined;
      });
  }

  /**
   * The pipeline at the cursor with one token generated and nothing recorded: the decisions land
   * in the decision cache and the prompt in the session's KV cache, where the request that follows
   * finds them. It queues behind real requests on the model lock like any other.
   */
  private async prefillNow(position: DocumentPosition, signal: AbortSignal): Promise<void> {
    const acquired = await this.acquireModel(signal);
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
   * The current model with the model lock held. A model replaced (a settings change) while this
   * request waited for the lock is about to be disposed, so the request takes its replacement.
   */
  private async acquireModel(signal: AbortSignal): Promise<AcquiredModel> {
    for (;;) {
      if (this.disposed) return { kind: 'cancelled' };
      const state = await this.models.get(this.settings);
      this.reportModel(state);
      if (state.kind === 'no-model') return state;
      const release = await this.modelLock.acquire(signal);
      if (!release) return { kind: 'cancelled' };
      if (this.models.isCurrent(state.model)) return { kind: 'ok', state, release };
      release();
    }
  }

  private async completeWithModel(
    request: CompletionRequest, text: string, loaded: LoadedModel, signal: AbortSignal,
  ): Promise<CompletionOutcome> {
    const output = await this.runPipelineAt(request, text, loaded, signal);
    if (output.trace.outcome === 'cancelled') return { kind: 'cancelled' };
    const { layout } = loaded;
    const traceId = randomUUID();
    const traced: TraceModel = { label: loaded.label, layout: layout.name, fallback: loaded.isFallback };
    this.traces.set(traceId, { ...output.trace, traceId, cached: false, model: traced });
    this.latestTraceId = traceId;
    return { kind: 'ok', text: output.text, traceId, cached: false, latencyMs: output.trace.timings.totalMs };
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
    request: CompletionRequest, text: string, loaded: LoadedModel, signal: AbortSignal, options: { prefillOnly?: boolean } = {},
  ): Promise<PipelineOutput> {
    const { model, layout } = loaded;
    const absPath = uriToPath(request.uri);
    if (this.pendingCloses.size > 0) await Promise.all(this.pendingCloses);
    // Retrieval reads the other open documents as they are now; this one's own entry may lag a
    // few keystrokes (its text, the prompt's prefix and suffix, is always current).
    this.index.flushBufferEdits(absPath);
    return runPipeline({
      uri: request.uri, text, relPath: absPath ? this.index.relPathOf(absPath) : undefined, repoName: this.repoNameOf(absPath), layout,
      position: { line: request.line, character: request.character }, mode: request.mode,
      settings: this.settings, model, session: await this.sessionFor(model), tokenizer: this.tokenizerFor(model),
      // Other budgets, another layout or other retrieval settings give another prompt: what was kept under them does not carry over.
      decisions: this.decisions.scope(request.uri, request.line, this.lineScopeKey(model.info.path, layout.name), this.settings.keepCandidatesNearLines),
      prefillOnly: options.prefillOnly,
    }, { index: this.index, retriever: this.retriever, logger: this.logger }, signal);
  }

  private lineScopeKey(modelPath: string, layoutName: string): string {
    const { budgets, topK, windowLines } = this.settings;
    return `${modelPath}|${layoutName}|${JSON.stringify(budgets)}|${topK}|${windowLines}`;
  }

  /**
   * The model server stopped answering (down, slow, refused): the completion is empty, the user is
   * told once, and the status reads `no-model` until a completion succeeds again.
   */
  private modelServerDown(error: ModelServerError): CompletionOutcome {
    const message = `The model server ${this.settings.modelServer} is not answering (${error.failure}): completions are empty until it is ` +
      'back. Start or restart llama-server there, or fix reposhapley.modelServer.';
    this.logger.debug(`model server request failed: ${error.message}`);
    this.notify({ severity: 'warning', message, status: 'no-model' });
    return { kind: 'no-model', message };
  }

  trace(traceId?: string): CompletionTrace | undefined {
    const id = traceId ?? this.latestTraceId;
    return id === undefined ? undefined : this.traces.get(id);
  }

  onNotice(listener: (notice: UserNotice) => void): void {
    this.noticeListeners.push(listener);
  }

  onModelStatus(listener: (status: ModelStatus) => void): void {
    this.modelStatusListeners.push(listener);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.puller.dispose();
    await this.models.dispose();
    this.index.dispose();
  }

  private notify(notice: UserNotice): void {
    if (this.noticesSent.has(notice.message)) return;
    this.noticesSent.add(notice.message);
    for (const listener of this.noticeListeners) listener(notice);
  }

  private repoNameOf(absPath: string | undefined): string {
    const root = absPath ? this.roots.find((r) => absPath.startsWith(r + path.sep)) : undefined;
    return path.basename(root ?? this.roots[0] ?? (absPath ? path.dirname(absPath) : '')) || 'workspace';
  }

  private sessionFor(model: CompletionModel): Promise<ModelSession> {
    let session = this.sessions.get(model);
    if (!session) this.sessions.set(model, (session = model.createSession()));
    return session;
  }

  private tokenizerFor(model: CompletionModel): LineTokenizer {
    let tokenizer = this.tokenizers.get(model);
    if (!tokenizer) this.tokenizers.set(model, (tokenizer = new LineTokenizer(model)));
    return tokenizer;
  }
}
