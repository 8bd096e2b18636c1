/**
 * Custom LSP messages of the RepoShapley server, each a typed message object (as vscode-eslint
 * keeps its own): the server registers and sends these objects, the VS Code client and the bench
 * send and receive them, so method names and parameter types are written once. Every custom
 * method lives under the `reposhapley/` prefix; other editors call the methods by name.
 *
 * The objects come from `vscode-jsonrpc`, the one dependency the server (via
 * vscode-languageserver) and the client (via vscode-languageclient) share. They must be built by
 * the same copy of it the connection uses: vscode-jsonrpc recognises a message's parameter
 * structure by object identity, so a second copy makes `sendRequest` throw. The root keeps one
 * copy (vscode-languageserver and vscode-languageserver-protocol at the same release) and the
 * client's bundler maps this import to its own copy (client-vscode/package.json, `build`).
 */
import { NotificationType, RequestType, type ProgressToken } from 'vscode-jsonrpc';
import type { LanguageId } from './languages.js';
import type { PolicyName } from './settings.js';

/** Why a generation ended: a stop token, the token limit, a stop rule, or an abort. */
export type StopReason = 'eos' | 'max-tokens' | 'newline' | 'stop-string' | 'repetition' | 'aborted';

/**
 * Params of {@link CompletionTraceRequest}. Without `traceId` the server answers
 * with the trace of the most recent completion it finished.
 */
export interface CompletionTraceParams {
  /** The `traceId` from a completion item's `command.arguments`, or omitted for the latest. */
  traceId?: string;
}

/** One retrieved candidate as the trace shows it. */
export interface TraceCandidate {
  /** Position in the packed candidate list (1-based, the i of <C_i>). */
  index: number;
  relPath: string;
  startLine: number;
  endLine: number;
  kind: string;
  /** Which sources proposed it (jaccard, bm25, definition, import, usage). */
  sources: string[];
  score: number;
  /** Whether the policy kept it for generation. */
  kept: boolean;
  /** P(<KEEP>) from the two-token softmax, when the reposhapley policy decided. */
  keepProbability?: number;
  /** An import outline's listed definitions (where each starts); its own lines are the document's imports. */
  lists?: { relPath: string; startLine: number }[];
}

/** Wall-clock milliseconds per pipeline stage. */
export interface StageTimings {
  /**
   * Time the request waited for the model before its stages ran: the model's load, or another
   * completion or background prefill using it. Absent in traces of older servers.
   */
  waitMs?: number;
  /**
   * Of the stages' time, how long the model evaluated other windows' completions first (a model
   * host shared by several servers); absent when nothing was shared.
   */
  sharedWaitMs?: number;
  retrievalMs: number;
  promptMs: number;
  decisionMs: number;
  selectionMs: number;
  generationMs: number;
  totalMs: number;
}

/** Result of {@link CompletionTraceRequest}. */
export interface CompletionTrace {
  traceId: string;
  uri: string;
  line: number;
  character: number;
  policy: PolicyName;
  /** Effective policy after `auto` was resolved (`auto` runs `full` in a language the control was not trained on). */
  effectivePolicy: Exclude<PolicyName, 'auto'>;
  /** The document's language; absent when the server has no rules for it (completed from its own text). */
  language?: LanguageId;
  /** `need`/`done` from the model (reposhapley), or what the policy imposes. */
  decision: 'need' | 'done';
  /** P(<NEED>) from the two-token softmax, when the model was asked. */
  needProbability?: number;
  /** t_c, the P(<NEED>) at or above which the model retrieves; set when the model was asked. */
  needThreshold?: number;
  /** Why generation ended (`repetition`: the completion started a loop and was cut). */
  stoppedBy?: StopReason;
  candidates: TraceCandidate[];
  completion: string;
  outcome: 'ok' | 'cancelled' | 'no-model' | 'error';
  /** Human-readable reason when outcome is not ok. */
  message?: string;
  tokens: {
    prompt: number;
    prefix: number;
    suffix: number;
    chunks: number;
    generated: number;
    /** Prompt tokens whose evaluation was reused from an earlier step or request. */
    reused: number;
    /**
     * What the model evaluated for this completion, by stage (tokens read back from its cache not
     * counted): the trigger, the selection, the generation prompt, the generated tokens; and the
     * prompt tokens all stages read from the cache. Absent in traces of older servers.
     */
    evaluated?: { trigger: number; selection: number; prompt: number; generated: number; reused: number };
  };
  timings: StageTimings;
  /** Index version the completion was computed against. */
  indexVersion: number;
  /** The rendered generation prompt, when the `tracePrompt` setting is on. */
  prompt?: string;
  /** Whether the answer came from the completion cache. */
  cached: boolean;
  /**
   * True when the request waited for the model to load and was answered from the short prompt of
   * `quickFirstAnswer` (the full one is read in the background for the next request).
   */
  quickFirstAnswer?: boolean;
  /** The model that answered: its catalog or file name, its prompt layout, and whether it is the bundled fallback. */
  model?: TraceModel;
}

/** Which model answered a completion (see {@link CompletionTrace.model}). */
export interface TraceModel {
  /** A catalog name (`qwen2.5-coder-0.5b`) or the file's name. */
  label: string;
  /** The prompt layout chosen for it when it loaded (`repo-fim`, `plain-fim`, `reposhapley`). */
  layout: string;
  /** True when the small bundled model stands in for the one asked for (not pulled, or failed to load). */
  fallback: boolean;
  /** Why the `model` setting `auto` picked it: `auto: qwen2.5-coder-0.5b: 480 prompt tok/s measured, ...`. */
  chosenBy?: string;
}

/** The model the server completes with (see {@link StatusParams.model}). */
export interface StatusModel {
  /** A catalog name (`qwen2.5-coder-0.5b`) or the file's name. */
  label: string;
  /** True when the small bundled model stands in for the one asked for. */
  fallback: boolean;
  /** Why the `model` setting `auto` picked it (see {@link TraceModel.chosenBy}). */
  chosenBy?: string;
}

/**
 * A catalog model the settings ask for that is not in the model cache yet: what a client needs
 * to offer its download with {@link PullModelRequest} (see {@link StatusParams.pullable}).
 */
export interface PullableModel {
  /** The catalog name to pass as {@link PullModelParams.name}. */
  name: string;
  /** The download size in bytes. */
  sizeBytes: number;
  /** The model's license (SPDX id, e.g. `Apache-2.0`). */
  license: string;
}

/** Params of {@link StatusNotification}. */
export interface StatusParams {
  state: 'indexing' | 'ready' | 'no-model' | 'error';
  /** Short human text, e.g. "indexed 668 files" or the model error with its fix. */
  message: string;
  /** Files indexed so far, while indexing. */
  indexedFiles?: number;
  /** Latency of the last completion in ms, when one finished. */
  lastLatencyMs?: number;
  /**
   * Of that latency, the ms the model spent on other editor windows' completions first (one model
   * host shared by several servers); absent when it waited for none.
   */
  lastSharedWaitMs?: number;
  /** The model in use, once one has loaded; absent while none is. */
  model?: StatusModel;
  /**
   * Set while the configured catalog model (the `model` setting, or what `auto` picks, with
   * `modelPath` and REPOSHAPLEY_MODEL unset) is not in the cache: a client may offer to download it.
   */
  pullable?: PullableModel;
  /**
   * The model server's URL while one is configured (the `modelServer` setting): with `no-model`,
   * it is that server which is not answering, and the fix is there, not a model file.
   */
  modelServer?: string;
}

/**
 * Params of {@link PullModelRequest}. Carries LSP's `WorkDoneProgressParams`: with a
 * `workDoneToken` the server reports on it with `$/progress` (begin, then reports with a
 * percentage that only rises and a message such as "assembling 210 / 491 MB, 12 MB/s", a few per
 * second at most, then end).
 */
export interface PullModelParams {
  /** A catalog name (`reposhapley model list`); omitted: the one `pullable` names, else the `model` setting. */
  name?: string;
  /** The client's work-done progress token (LSP `WorkDoneProgressParams.workDoneToken`). */
  workDoneToken?: ProgressToken;
}

/** Why a pull failed: the model store's codes, `busy` (another model is being pulled) or `not-ready` (no engine yet). */
export type PullModelErrorCode =
  | 'not-in-catalog' | 'no-pip' | 'registry-unreachable' | 'hash-mismatch' | 'disk-full' | 'download-failed' | 'control-pack' | 'adapter-pack' | 'cancelled'
  | 'busy' | 'not-ready';

/** Result of {@link PullModelRequest}: expected failures are values, never JSON-RPC errors. */
export type PullModelResult =
  | {
    kind: 'ok';
    /** The catalog name pulled. */
    name: string;
    /** The verified model file in the server's model cache. */
    path: string;
    /** Where the bytes came from: already in the cache, PyPI chunk packages, or the URL. */
    source: 'cache' | 'pypi' | 'url';
    /**
     * Whether completions now use it (loaded before this answer). False when `modelPath` or
     * REPOSHAPLEY_MODEL is set, the `model` setting names another model, or it failed to load.
     */
    inUse: boolean;
  }
  | {
    kind: 'error';
    code: PullModelErrorCode;
    /** One line with the reason and the fix. */
    message: string;
  };

/**
 * Request (client -> server) `reposhapley/pullModel`: download a catalog model into the server's
 * per-user model cache (`modelCacheDir` setting, else `$REPOSHAPLEY_CACHE_DIR`, else the XDG
 * cache), verify it, and load it when the settings select it, so completions use it with no
 * restart. One pull runs at a time: a request for the model being pulled joins it, one for
 * another model answers `busy`. Cancelling the request aborts the pull (once every request
 * joined to it is cancelled); what was downloaded is kept for the next attempt.
 */
export const PullModelRequest = new RequestType<PullModelParams, PullModelResult, void>('reposhapley/pullModel');

/**
 * Request (client -> server) `reposhapley/completionTrace`: the trace of a completion ("why this
 * completion?"), by the trace id its item carried, or the latest one. Answers null when the
 * server has no such trace (never completed, evicted, or no engine yet).
 */
export const CompletionTraceRequest = new RequestType<CompletionTraceParams, CompletionTrace | null, void>('reposhapley/completionTrace');

/** Params of {@link CursorNotification}: LSP's document identifier and position (UTF-16 characters). */
export interface CursorParams {
  textDocument: { uri: string };
  position: { line: number; character: number };
}

/**
 * Notification (client -> server) `reposhapley/cursor`: the cursor came to rest there (a click,
 * a jump, an editor brought to front; not a keystroke, which a completion request follows
 * anyway). With `backgroundPrefill` on, the server evaluates the prompt a completion there would
 * use, in the background, so the first keystroke finds it cached. Send it after the cursor has
 * stood still a moment ({@link CURSOR_REST_MS}); a request stops the prefill at once.
 */
export const CursorNotification = new NotificationType<CursorParams>('reposhapley/cursor');

/**
 * How long the cursor stands still before the VS Code client sends {@link CursorNotification};
 * the bench's typing replay waits as long, so it measures what the client does.
 */
export const CURSOR_REST_MS = 150;

/**
 * Notification (server -> client) `reposhapley/status`: indexing progress, ready, no model or
 * error, for a status bar. Sent when the state changes (indexing progress at most every 200 ms).
 */
export const StatusNotification = new NotificationType<StatusParams>('reposhapley/status');
