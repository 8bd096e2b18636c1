/**
 * The domain facade the LSP layer and the CLI talk to. It owns the workspace index,
 * the loaded model and the completion pipeline; it never sees an LSP connection.
 * Positions are 0-based lines and UTF-16 code-unit characters (LSP's default encoding).
 */
import type { CompletionTrace, PullableModel, PullModelResult, StatusModel } from '../../../shared/messages.js';
import type { SettingsPatch, CompletionSettings } from '../../../shared/settings.js';
import type { WorkspaceBoundHit } from '../indexing/indexResults.js';
import type { DocumentEdit } from '../indexing/textEdits.js';
import type { DocumentView } from './openDocuments.js';

/** A text edit in a document, as LSP incremental sync sends it (range may be out of bounds: it is clamped). */
export type { DocumentEdit } from '../indexing/textEdits.js';

/** One changed file reported by the editor's file watcher. */
export interface WatchedFileEvent {
  uri: string;
  type: 'created' | 'changed' | 'deleted';
}

/** Progress while indexing, for work-done progress and status bars. */
export interface IndexProgress {
  filesDone: number;
  filesTotal: number;
  currentFile?: string;
}

/** What indexing a workspace produced. */
export interface IndexStats {
  roots: string[];
  files: number;
  /** Indexed files by language id, each language present once. */
  filesByLanguage: Record<string, number>;
  skipped: number;
  /** Skipped paths by reason, each reason present once. */
  skippedByReason?: Record<string, number>;
  windows: number;
  structuralChunks: number;
  definitions: number;
  lines: number;
  bytes: number;
  wallMs: number;
  version: number;
  /** Set when the workspace bound (indexMaxFiles, indexMaxMegabytes) stopped indexing early. */
  bound?: WorkspaceBoundHit;
}

/** A cursor in an open document. */
export interface DocumentPosition {
  uri: string;
  line: number;
  character: number;
}

/** A completion request at a cursor. */
export interface CompletionRequest extends DocumentPosition {
  /** 'automatic' for as-you-type, 'invoked' when the user asked explicitly. */
  trigger: 'automatic' | 'invoked';
  /** Force a single-line or a block completion; default (auto) decides from the cursor. */
  mode?: 'line' | 'block' | 'auto';
}

/** Outcome of a completion: expected outcomes are values, not exceptions. */
export type CompletionOutcome =
  | {
    kind: 'ok'; text: string; traceId: string; cached: boolean;
    /** The pipeline's own wall time for this completion (its trace's `timings.totalMs`). */
    latencyMs: number;
    /** Of that, the time the model spent on other windows' completions first (a shared model host). */
    sharedWaitMs?: number;
  }
  | { kind: 'cancelled' }
  /** Completions are off: all of them (`enabled`), or in this document's language (`languages.<id>`, named in `message`). */
  | { kind: 'disabled'; message?: string }
  | { kind: 'no-model'; message: string }
  | { kind: 'unknown-document'; message: string }
  | { kind: 'error'; message: string };

/** A user-facing problem to show once (e.g. a missing model and how to fix it). */
export interface UserNotice {
  severity: 'error' | 'warning' | 'info';
  message: string;
  /**
   * The server state this notice implies for status bars, if any: `no-model` when no model
   * could be found or loaded, `error` for a server-wide failure. Omit for per-file problems.
   */
  status?: 'no-model' | 'error';
  /**
   * True when the fix is pulling the configured catalog model ({@link CompletionEngine.pullModel}):
   * a client that offers the download itself may show its offer instead of this notice.
   */
  offersPull?: boolean;
}

/** The model in use and whether the one asked for can be pulled; sent when either changes. */
export interface ModelStatus {
  /** The loaded model; absent while none is. */
  model?: StatusModel;
  /** The configured catalog model, while it is not in the cache. */
  pullable?: PullableModel;
  /** The model server in use (the `modelServer` setting), if any. */
  modelServer?: string;
}

/** Progress of a model pull, for a progress bar. */
export interface ModelPullProgress {
  /** 0-100 over the whole pull; never goes down. */
  percentage: number;
  /** One line, e.g. "assembling 210 / 491 MB, 12 MB/s". */
  message: string;
}

export interface CompletionEngine {
  /** Current effective settings. */
  readonly settings: CompletionSettings;
  /** Version of the workspace index (IndexView.version); bumped on every change. Part of the LSP completion cache key. */
  readonly indexVersion: number;
  /** Index every root; reports progress; resolves when done or aborted. */
  indexWorkspace(roots: string[], onProgress: (p: IndexProgress) => void, signal?: AbortSignal): Promise<IndexStats>;
  /**
   * The open documents, as the engine holds them: the server's one store (openDocuments.ts). The
   * LSP layer reads cursor text and versions here instead of keeping a copy.
   */
  readonly documents: DocumentView;
  /** Open a document; `editorLanguageId` (LSP's `languageId`) names its language when its file name does not. */
  openDocument(uri: string, text: string, version: number, editorLanguageId?: string): void;
  /** Apply incremental edits; false (and nothing done) for a document that is not open. */
  changeDocument(uri: string, edits: DocumentEdit[], version: number): boolean;
  closeDocument(uri: string): void;
  filesChanged(events: WatchedFileEvent[]): Promise<void>;
  /** Merge settings; reloads the model if its path, threads or gpuLayers changed. */
  updateSettings(patch: SettingsPatch): Promise<void>;
  complete(request: CompletionRequest, signal: AbortSignal): Promise<CompletionOutcome>;
  /**
   * The cursor came to rest at `position` (an editor said so): evaluate the prompt a completion
   * there would use, in the background, so the first request finds it in the KV cache. Callers
   * need not wait: it resolves when the prefill ended (done, stopped or skipped) and never
   * rejects. A later prefill replaces it; a completion request stops it within one evaluation
   * chunk and reuses what it evaluated. Does nothing when `backgroundPrefill` is off or the
   * document is not open.
   */
  prefill(position: DocumentPosition): Promise<void>;
  /** The trace of a completion by id, or the latest when id is omitted. */
  trace(traceId?: string): CompletionTrace | undefined;
  /** Subscribe to user-facing notices; each distinct problem is emitted once. */
  onNotice(listener: (notice: UserNotice) => void): void;
  /** Subscribe to the model status; emitted when a model is loaded or looked for and it changed. */
  onModelStatus(listener: (status: ModelStatus) => void): void;
  /** The catalog model {@link pullModel} fetches for `name`: itself, else what the `model` setting asks for (`auto`'s pick). */
  modelToPull(name: string | undefined): string;
  /**
   * Pulls catalog model `name` (default: {@link modelToPull}) into the model cache (the
   * `modelCacheDir` setting), then loads it when the settings select it, so the next completion
   * uses it. One pull at a time: the same model joins the running pull, another one is `busy`.
   * Aborting `signal` abandons the wait; the pull stops when no caller waits for it any more.
   */
  pullModel(name: string | undefined, onProgress: (progress: ModelPullProgress) => void, signal: AbortSignal): Promise<PullModelResult>;
  dispose(): Promise<void>;
}
