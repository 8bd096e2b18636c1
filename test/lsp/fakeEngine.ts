/**
 * A fake CompletionEngine for orchestration tests of the LSP layer (unit tests and the
 * fake-engine stdio server). It keeps documents in the real store, counts calls, and completes after a delay
 * that honours the AbortSignal, so cancellation and supersession can be observed.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CompletionTrace, PullableModel, PullModelResult, StatusModel } from '../../shared/messages.js';
import { DEFAULT_SETTINGS, type CompletionSettings, type SettingsPatch } from '../../shared/settings.js';
import type {
  CompletionEngine, CompletionOutcome, CompletionRequest, DocumentPosition, DocumentEdit, IndexProgress, IndexStats, ModelPullProgress, ModelStatus,
  UserNotice, WatchedFileEvent,
} from '../../server/src/completion/engine.js';
import { OpenDocuments } from '../../server/src/completion/openDocuments.js';
import { mergeSettings } from '../../server/src/completion/settings.js';

/** How the fake behaves. */
export interface FakeEngineOptions {
  /** Milliseconds each completion takes (abortable). */
  completeDelayMs?: number;
  /** Answer every completion with no-model (and emit a notice once). */
  noModel?: boolean;
  settings?: SettingsPatch;
  /**
   * Start on a fallback model with the configured catalog model pullable: after indexing, the
   * fake says so (model status and a warning that offers the pull), as the real engine does.
   */
  pullable?: boolean;
  /** Milliseconds before each of the fake pull's progress steps (abortable); default 0. */
  pullStepMs?: number;
}

/** The fallback model the fake starts on with `pullable`, and what it offers to pull. */
export const FAKE_FALLBACK: StatusModel = { label: 'fallback.gguf', fallback: true };
export const FAKE_PULLABLE: PullableModel = { name: 'qwen2.5-coder-0.5b', sizeBytes: 491_400_064, license: 'Apache-2.0' };
export const FAKE_FALLBACK_NOTICE = 'The model qwen2.5-coder-0.5b is not downloaded yet. Until then completions use the small bundled model.';
/** How many progress steps the fake pull reports (0%, then evenly to 100%). */
export const FAKE_PULL_STEPS = 4;

/** The message the fake uses for a missing model. */
export const FAKE_NO_MODEL_MESSAGE = 'No model is bundled yet. Pass one with --model PATH or REPOSHAPLEY_MODEL.';

function abortableDelay(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function listPythonFiles(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root)) {
    const full = path.join(root, entry);
    if (statSync(full).isDirectory()) found.push(...listPythonFiles(full));
    else if (entry.endsWith('.py')) found.push(full);
  }
  return found;
}

/** The fake engine. Public fields let tests inspect what the LSP layer did. */
export class FakeEngine implements CompletionEngine {
  settings: CompletionSettings;
  indexVersion = 0;
  readonly documents = new OpenDocuments();
  readonly completeCalls: CompletionRequest[] = [];
  readonly prefillCalls: DocumentPosition[] = [];
  readonly edits: DocumentEdit[][] = [];
  readonly fileEvents: WatchedFileEvent[][] = [];
  readonly settingsPatches: SettingsPatch[] = [];
  aborted = 0;
  disposed = false;
  /** Names the fake was asked to pull, and how many pulls were aborted. */
  readonly pulls: string[] = [];
  pullsAborted = 0;
  /** The model completions report in their traces. */
  model: StatusModel = { label: 'fake.gguf', fallback: false };
  private readonly modelListeners: ((status: ModelStatus) => void)[] = [];
  private readonly traces = new Map<string, CompletionTrace>();
  private readonly listeners: ((notice: UserNotice) => void)[] = [];
  private noticeSent = false;

  constructor(private readonly options: FakeEngineOptions = {}) {
    this.settings = { ...DEFAULT_SETTINGS, ...options.settings, budgets: { ...DEFAULT_SETTINGS.budgets } } as CompletionSettings;
  }

  async indexWorkspace(roots: string[], onProgress: (p: IndexProgress) => void): Promise<IndexStats> {
    const files = roots.flatMap(listPythonFiles);
    files.forEach((file, i) => onProgress({ filesDone: i + 1, filesTotal: files.length, currentFile: file }));
    this.indexVersion++;
    if (this.options.pullable) this.startOnFallback();
    return {
      roots, files: files.length, filesByLanguage: files.length > 0 ? { python: files.length } : {}, skipped: 0,
      windows: files.length, structuralChunks: 0, definitions: 0,
      lines: 0, bytes: 0, wallMs: 1, version: this.indexVersion,
    };
  }

  openDocument(uri: string, text: string, version: number): void {
    this.documents.open(uri, text, version);
  }

  changeDocument(uri: string, edits: DocumentEdit[], version: number): boolean {
    this.edits.push(edits);
    return this.documents.change(uri, edits, version) !== undefined;
  }

  closeDocument(uri: string): void {
    this.documents.close(uri);
  }

  async filesChanged(events: WatchedFileEvent[]): Promise<void> {
    this.fileEvents.push(events);
    this.indexVersion++;
  }

  async updateSettings(patch: SettingsPatch): Promise<void> {
    this.settingsPatches.push(patch);
    this.settings = mergeSettings(this.settings, patch);
  }

  async complete(request: CompletionRequest, signal: AbortSignal): Promise<CompletionOutcome> {
    this.completeCalls.push(request);
    if (!this.documents.has(request.uri)) return { kind: 'unknown-document', message: `${request.uri} is not open` };
    if (this.options.noModel) return this.noModel();
    if (!(await abortableDelay(this.options.completeDelayMs ?? 0, signal))) {
      this.aborted++;
      return { kind: 'cancelled' };
    }
    const traceId = `trace-${this.completeCalls.length}`;
    const text = `completion_${request.line}_${request.character}`;
    this.traces.set(traceId, { ...fakeTrace(traceId, request, text, this.indexVersion), model: { ...this.model, layout: 'plain-fim' } });
    return { kind: 'ok', text, traceId, cached: false, latencyMs: 17 };
  }

  async prefill(position: DocumentPosition): Promise<void> {
    this.prefillCalls.push(position);
  }

  trace(traceId?: string): CompletionTrace | undefined {
    if (traceId !== undefined) return this.traces.get(traceId);
    return [...this.traces.values()].at(-1);
  }

  onNotice(listener: (notice: UserNotice) => void): void {
    this.listeners.push(listener);
  }

  onModelStatus(listener: (status: ModelStatus) => void): void {
    this.modelListeners.push(listener);
  }

  /** Reports 0%, then FAKE_PULL_STEPS steps to 100% (each after `pullStepMs`), then switches to the pulled model. */
  /** As the real engine: what it offers (the pick of `model: auto`), else the model setting. */
  modelToPull(name: string | undefined): string {
    return name ?? (this.options.pullable ? FAKE_PULLABLE.name : this.settings.model);
  }

  async pullModel(name: string | undefined, onProgress: (progress: ModelPullProgress) => void, signal: AbortSignal): Promise<PullModelResult> {
    const wanted = this.modelToPull(name);
    this.pulls.push(wanted);
    onProgress({ percentage: 0, message: `fetching ${wanted}` });
    for (let step = 1; step <= FAKE_PULL_STEPS; step++) {
      if (!(await abortableDelay(this.options.pullStepMs ?? 0, signal))) {
        this.pullsAborted++;
        return { kind: 'error', code: 'cancelled', message: 'the download was cancelled' };
      }
      onProgress({ percentage: (100 * step) / FAKE_PULL_STEPS, message: `downloading ${step} / ${FAKE_PULL_STEPS} MB` });
    }
    this.model = { label: wanted, fallback: false };
    this.emitModelStatus({ model: this.model });
    return { kind: 'ok', name: wanted, path: `/cache/${wanted}.gguf`, source: 'pypi', inUse: true };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }

  private startOnFallback(): void {
    this.model = FAKE_FALLBACK;
    for (const listener of this.listeners) listener({ severity: 'warning', message: FAKE_FALLBACK_NOTICE, offersPull: true });
    this.emitModelStatus({ model: FAKE_FALLBACK, pullable: FAKE_PULLABLE });
  }

  private emitModelStatus(status: ModelStatus): void {
    for (const listener of this.modelListeners) listener(status);
  }

  private noModel(): CompletionOutcome {
    if (!this.noticeSent) {
      this.noticeSent = true;
      for (const listener of this.listeners) listener({ severity: 'error', message: FAKE_NO_MODEL_MESSAGE, status: 'no-model' });
    }
    return { kind: 'no-model', message: FAKE_NO_MODEL_MESSAGE };
  }
}

function fakeTrace(traceId: string, request: CompletionRequest, completion: string, indexVersion: number): CompletionTrace {
  return {
    traceId, uri: request.uri, line: request.line, character: request.character, policy: 'auto',
    effectivePolicy: 'none', decision: 'done', candidates: [], completion, outcome: 'ok',
    tokens: { prompt: 10, prefix: 8, suffix: 2, chunks: 0, generated: 3, reused: 0 },
    timings: { retrievalMs: 0, promptMs: 0, decisionMs: 0, selectionMs: 0, generationMs: 1, totalMs: 1 },
    indexVersion, cached: false,
  };
}
