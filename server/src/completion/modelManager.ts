/**
 * Owns the loaded model: finds it (modelChoice.ts: setting, REPOSHAPLEY_MODEL, the pulled catalog
 * model, the bundled fallback), loads it lazily and once, reloads when the files to try, threads
 * or GPU layers change (a pull that finishes is picked up at the next request), retries a failed
 * load once its file changed, and turns every failure into one user-facing message with the fix.
 * The server keeps serving without a model, and on the fallback when the model asked for fails.
 */
import type { PullableModel } from '../../../shared/messages.js';
import type { CompletionSettings, LayoutPreference } from '../../../shared/settings.js';
import type { CompletionModel, LoadModelOptions, LoadModelResult } from '../model/completionModel.js';
import { contextSizeFor } from '../prompt/budget.js';
import { chooseLayout, type PromptLayout } from '../prompt/layouts.js';
import { controlPackManifest } from '../modelStore/controlPack.js';
import { candidateAdapter, findBundledModel, planModel, type ModelCandidate, type ModelPlanInputs } from './modelChoice.js';
import { fileStamp } from '../util/fileStamp.js';
import type { Logger } from '../util/logger.js';
import type { Mutex } from '../util/mutex.js';

/** Loads a model; the default dynamically imports node-llama-cpp only when a model is needed. */
export type ModelLoader = (options: LoadModelOptions, logger: Logger) => Promise<LoadModelResult>;

export type ModelState =
  /** A loaded model and the prompt layout chosen for it, once, at load. */
  | {
    kind: 'ok'; model: CompletionModel; layout: PromptLayout;
    /** What the model is called in traces and the status bar, and whether it stands in for another. */
    label: string; isFallback: boolean;
    /** Why the model asked for is not the one loaded, with the fix (shown once). */
    notice?: string;
    /** The catalog model asked for, while pulling it is the fix. */
    pullable?: PullableModel;
    /** Why `auto` picked this model (ModelPlan.chosenBy). */
    chosenBy?: string;
    /** When it finished loading (performance.now()): a request made before waited for the load. */
    loadedAt: number;
  }
  | { kind: 'no-model'; message: string; pullable?: PullableModel };

export const NO_MODEL_MESSAGE =
  'No model is available: none is configured, the default model is not downloaded and this build bundles no ' +
  'fallback. Run `reposhapley model pull`, pass one with `--model PATH` (CLI), set `reposhapley.modelPath` to a ' +
  'GGUF file (editor settings), or set REPOSHAPLEY_MODEL.';

/**
 * How often, at most, the file of a failed load is looked at again (one stat, at a completion
 * request): often enough that a model put back is picked up at the next keystroke or so.
 */
export const RETRY_CHECK_MS = 2_000;

/**
 * How often a model server that could not be reached is tried again. The retry runs in the
 * background: requests meanwhile get the failure at once instead of waiting on the network.
 */
export const REMOTE_RETRY_MS = 3_000;

export interface ModelManagerOptions {
  /**
   * The lock completions hold while they use a model. A replaced model is disposed only while
   * holding it, so a running completion never has its model disposed under it.
   */
  lock: Mutex;
  /** Milliseconds clock for the retry throttle (tests). */
  now?: () => number;
  /** Environment and bundled-model lookup for the model plan (tests). */
  plan?: ModelPlanInputs;
}

/** What one load is asked to do: files to try in order, and the runtime options. */
interface LoadRequest {
  candidates: ModelCandidate[];
  notice?: string;
  pullable?: PullableModel;
  chosenBy?: string;
  speedUnmeasured?: boolean;
  threads: number;
  adaptiveThreads: boolean;
  gpuLayers: LoadModelOptions['gpuLayers'];
  layout: LayoutPreference;
  host: NonNullable<LoadModelOptions['host']>;
  server?: LoadModelOptions['server'];
  adapterPath?: string;
  shiftedReuseMinTokens?: number;
  /** Positions a session needs for the prompt budgets (prompt/budget.ts contextSizeFor). */
  contextNeeded: number;
}

/** One load: its settings key, its outcome, and for a failure what to watch for a retry. */
interface Load {
  key: string;
  state: Promise<ModelState>;
  failure?: FailedLoad;
  /** The model once loaded, and its file's stamp when the load began. */
  loaded?: { model: CompletionModel; label: string; path: string; stamp: string };
}

/** What one load produced: the state, the first failure to watch, and the model it loaded. */
interface LoadOutcome {
  state: ModelState;
  failure?: FailedLoad;
  loaded?: Load['loaded'];
}

/** A failed load's file as it was when the load began, and when it was last compared. */
interface FailedLoad {
  path: string;
  stamp: string;
  checkedAt: number;
  /** A model server, retried every REMOTE_RETRY_MS rather than when a file changes. */
  remote?: boolean;
}

/** The LoRA adapter a candidate loads with, as load options (candidateAdapter). */
function adapterFor(candidate: ModelCandidate, request: LoadRequest): Pick<LoadModelOptions, 'adapterPath'> {
  const adapterPath = candidateAdapter(candidate, request.adapterPath);
  return adapterPath ? { adapterPath } : {};
}

/**
 * The shortest moved run of cached tokens worth keeping with kvShiftReuse: about a line of code
 * or more. Shorter coincidences (a shared `self.` or closing brackets) would keep context from
 * elsewhere for a handful of tokens' work.
 */
export const SHIFTED_REUSE_MIN_TOKENS = 16;

/** See ModelManager.restarted. */
const RESTART_WINDOW_MS = 60_000;

export class ModelManager {
  private current?: Load;
  /** A model server tried again while `current` (its failure) keeps answering. */
  private retrying?: Load;
  /** Models in service: a model leaves this set when it is replaced, before it is disposed. */
  private readonly live = new Set<CompletionModel>();
  private readonly lock: Mutex;
  private readonly now: () => number;
  private readonly planInputs: ModelPlanInputs;
  /**
   * Files whose model died in service (llama.cpp aborted its process), by path: the stamp the
   * file had and what to tell the user. Such a file is not loaded again until it changes, so a
   * model that crashes at its first completion cannot crash in a loop.
   */
  private readonly crashed = new Map<string, { stamp: string; message: string }>();
  /**
   * When each file's host last went away from outside (killed, not crashed: the model may load
   * again at once). Two such ends within {@link RESTART_WINDOW_MS} count as a crash: a host that
   * keeps dying is not started in a loop, whatever the reason.
   */
  private readonly restarted = new Map<string, number>();

  constructor(private readonly loader: ModelLoader, private readonly logger: Logger, options: ModelManagerOptions) {
    this.lock = options.lock;
    this.now = options.now ?? (() => performance.now());
    // The plan runs at every request; the bundled model and the control packs are part of the
    // install, so they are looked up once rather than at every keystroke.
    const bundled = options.plan?.bundled ?? once(findBundledModel);
    const controlPack = options.plan?.controlPack ?? oncePerName(controlPackManifest);
    this.planInputs = { ...options.plan, bundled, controlPack };
  }

  /** The model for these settings, loading (or reloading) it when needed. */
  get(settings: CompletionSettings): Promise<ModelState> {
    const plan = planModel(settings, this.planInputs);
    const request: LoadRequest = {
      ...plan, threads: settings.threads, adaptiveThreads: settings.adaptiveThreads, gpuLayers: settings.gpuLayers, layout: settings.layout,
      host: { shared: settings.sharedModelHost, idleSeconds: settings.modelHostIdleSeconds },
      contextNeeded: contextSizeFor(settings.budgets, settings.maxTokens, settings.topK),
      ...(settings.adapterPath ? { adapterPath: settings.adapterPath } : {}),
      ...(settings.kvShiftReuse ? { shiftedReuseMinTokens: SHIFTED_REUSE_MIN_TOKENS } : {}),
      ...(settings.modelServer ? { server: serverOptions(settings) } : {}),
    };
    // Why `auto` picked the model is not what loads: a new speed measurement that picks the same
    // model must not reload it (its reason then shows at the next load).
    const { chosenBy: _reason, speedUnmeasured: _unmeasured, ...loadShape } = request;
    const key = JSON.stringify(loadShape);
    if (this.current?.key === key && this.current.failure?.remote) {
      if (this.shouldRetry(this.current)) this.retryInBackground(key, request);
      return this.current.state;
    }
    if (this.current?.key !== key || this.shouldRetry(this.current) || this.hasDied(this.current)) {
      this.retrying = undefined;
      this.current = this.startLoad(key, request);
    }
    return this.current.state;
  }

  /**
   * Whether `model` is still in service. A caller holding the lock may use a model for which
   * this is true until it releases the lock; after a settings change it is false, and the
   * caller should take the replacement from {@link get}.
   */
  isCurrent(model: CompletionModel): boolean {
    return this.live.has(model);
  }

  async dispose(): Promise<void> {
    const state = await this.current?.state;
    this.current = undefined;
    if (state?.kind === 'ok') await this.retire(state.model);
  }

  /**
   * A failed load is tried again once its file changed (put back, replaced, repaired), so the
   * user need not restart or touch a setting. Checked at most every RETRY_CHECK_MS: this runs on
   * every completion request, and the same failure is then reported once, not per keystroke.
   */
  private shouldRetry(load: Load): boolean {
    const failure = load.failure;
    if (!failure || this.now() - failure.checkedAt < (failure.remote ? REMOTE_RETRY_MS : RETRY_CHECK_MS)) return false;
    failure.checkedAt = this.now();
    return failure.remote === true || fileStamp(failure.path) !== failure.stamp;
  }

  /** Connect to the model server again; the new load becomes current once it answered. */
  private retryInBackground(key: string, request: LoadRequest): void {
    if (this.retrying) return;
    const retry = this.startLoad(key, request);
    this.retrying = retry;
    void retry.state.then(() => {
      if (this.retrying !== retry) return;
      this.retrying = undefined;
      if (this.current?.key !== key) {
        if (retry.loaded) void this.retire(retry.loaded.model);
        return;
      }
      // Still failing, its failure is timed from this attempt, so the next retry waits its turn.
      this.current = retry;
    });
  }

  /**
   * A model whose process died is replaced at the next request: its file is set aside (see
   * {@link crashed}) and the plan is loaded again without it, so the fallback takes over. A host
   * stopped from outside is no fault of the file: it is loaded again (see {@link restarted}).
   */
  private hasDied(load: Load): boolean {
    const failure = load.loaded?.model.failure;
    if (!load.loaded || failure === undefined) return false;
    const { label, path, stamp } = load.loaded;
    const lastRestart = this.restarted.get(path);
    if (load.loaded.model.failureRetryable && (lastRestart === undefined || this.now() - lastRestart > RESTART_WINDOW_MS)) {
      this.restarted.set(path, this.now());
      this.logger.warn(`the model ${label} stopped (${failure}); it is loaded again`);
      return true;
    }
    this.crashed.set(path, {
      stamp,
      message: `The model ${label} (${path}) stopped working: ${failure}. It is not loaded again until its file changes; ` +
        'download or export it again, or set reposhapley.modelPath to another GGUF file.',
    });
    return true;
  }

  private startLoad(key: string, request: LoadRequest): Load {
    const load: Load = {
      key,
      state: this.load(request, this.current?.state).then((outcome) => {
        load.failure = outcome.failure;
        load.loaded = outcome.loaded;
        return outcome.state;
      }),
    };
    return load;
  }

  /**
   * Tries the candidates in order. A failure of the model asked for is remembered (and retried
   * once its file changes) even when the fallback then loads, and is part of the notice.
   */
  private async load(request: LoadRequest, previous: Promise<ModelState> | undefined): Promise<LoadOutcome> {
    const old = await previous;
    if (old?.kind === 'ok') await this.retire(old.model);
    let failure: FailedLoad | undefined;
    const problems: string[] = request.notice ? [request.notice] : [];
    for (const candidate of request.candidates) {
      const options: LoadModelOptions = {
        path: candidate.path, threads: request.threads, gpuLayers: request.gpuLayers, ...(candidate.remote ? { server: request.server } : {}),
        ...(request.adaptiveThreads && !candidate.remote ? { adaptiveThreads: true } : {}),
        ...(candidate.remote ? {} : { host: request.host, contextNeeded: request.contextNeeded }),
        ...adapterFor(candidate, request), ...(candidate.hashPinned ? { hashPinned: true } : {}),
        ...(request.shiftedReuseMinTokens && !candidate.remote ? { shiftedReuseMinTokens: request.shiftedReuseMinTokens } : {}),
      };
      // Stamped before loading: a file that changes while it loads is seen as changed afterwards.
      const stamp = fileStamp(options.path);
      const crash = this.crashed.get(options.path);
      const result = crash?.stamp === stamp ? { kind: 'error' as const, message: crash.message } : await this.loadOne(options);
      if (result.kind === 'ok') {
        const loaded = { model: result.model, label: candidate.label, path: options.path, stamp };
        return { state: this.loaded(result.model, candidate, request, problems), failure, loaded };
      }
      failure ??= { path: options.path, stamp, checkedAt: this.now(), ...(candidate.remote ? { remote: true } : {}) };
      problems.push(candidate.isFallback ? `The bundled fallback failed too: ${result.message}` : withRepair(result.message, candidate));
    }
    const message = problems.join(' ') || NO_MODEL_MESSAGE;
    return { state: request.pullable ? { kind: 'no-model', message, pullable: request.pullable } : { kind: 'no-model', message }, failure };
  }

  private async loadOne(options: LoadModelOptions): Promise<LoadModelResult> {
    return this.loader(options, this.logger).catch((error: unknown) => ({
      kind: 'error' as const, message: `Loading ${options.path} failed: ${String(error)}`,
    }));
  }

  private loaded(model: CompletionModel, candidate: ModelCandidate, request: LoadRequest, problems: readonly string[]): ModelState {
    const { info } = model;
    const layout = chooseLayout(info, request.layout);
    const chosenBy = candidate.isFallback ? undefined : request.chosenBy;
    this.logger.info(
      `model ${candidate.label} (${info.path}) loaded ` +
      `(${info.threads} threads, ${info.gpuLayers} GPU layers, control tokens: ${info.hasControlTokens}, layout ${layout.name})` +
      (chosenBy ? `; ${chosenBy}` : ''),
    );
    this.live.add(model);
    // A server's model is named by the file it serves, and where.
    const label = candidate.remote ? `${info.name ?? 'model'} at ${candidate.path}` : candidate.label;
    const state: ModelState = { kind: 'ok', model, layout, label, isFallback: candidate.isFallback, loadedAt: performance.now() };
    if (problems.length > 0) state.notice = problems.join(' ');
    if (request.pullable) state.pullable = request.pullable;
    if (chosenBy) state.chosenBy = chosenBy;
    return state;
  }

  /**
   * Takes a replaced model out of service and disposes it once no completion uses it. Leaving
   * `live` first makes completions queued for the lock switch to the replacement.
   */
  private async retire(model: CompletionModel): Promise<void> {
    this.live.delete(model);
    const release = await this.lock.acquire();
    try {
      await model.dispose();
    } finally {
      release?.();
    }
  }
}

/** The model-server request options; the API key may come from the environment, out of settings files. */
function serverOptions(settings: CompletionSettings): NonNullable<LoadModelOptions['server']> {
  const apiKey = settings.modelServerApiKey || process.env.REPOSHAPLEY_MODEL_SERVER_API_KEY || undefined;
  return { timeoutMs: settings.modelServerTimeoutMs, ...(apiKey ? { apiKey } : {}) };
}

function once<T>(compute: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: compute() }).v;
}

function oncePerName<T>(compute: (name: string) => T): (name: string) => T {
  const values = new Map<string, T>();
  return (name) => {
    if (!values.has(name)) values.set(name, compute(name));
    return values.get(name) as T;
  };
}

/** A pulled model's load failure also says how to fetch it again. */
function withRepair(message: string, candidate: ModelCandidate): string {
  return candidate.repair ? `${message} ${candidate.repair}` : message;
}
