/**
 * The engine's models: which one is loaded (ModelManager), the one lock that lets one completion
 * at a time run it (2 cores; a KV cache per session), pulling catalog models, a session and a line
 * tokenizer per loaded model, and what the user is told about the model in use.
 *
 * Requests take the lock in the order they came; one aborted while it waits leaves the queue and
 * never reaches the model. The same lock keeps a model that a settings change replaced alive until
 * the completion using it is done.
 */
import type { PullModelResult } from '../../../shared/messages.js';
import type { CompletionSettings } from '../../../shared/settings.js';
import type { CompletionModel, ModelSession } from '../model/completionModel.js';
import type { ModelServerError } from '../model/remote/llamaServerApi.js';
import { AUTO_MODEL } from '../modelStore/autoModel.js';
import { resolveThreads } from '../model/threads.js';
import { LineTokenizer } from '../prompt/lineTokenizer.js';
import type { Logger } from '../util/logger.js';
import { Mutex } from '../util/mutex.js';
import type { CompletionOutcome, ModelPullProgress, ModelStatus } from './engine.js';
import { planModel, type ModelPlan, type ModelPlanInputs } from './modelChoice.js';
import { ModelManager, type ModelLoader, type ModelState } from './modelManager.js';
import { ModelPuller, type PullFunction } from './modelPuller.js';
import { measureInChildProcess, type SpeedMeasurer } from './speedMeasurement.js';
import type { UserNotices } from './userNotices.js';

export type LoadedModel = Extract<ModelState, { kind: 'ok' }>;

/** A model taken for one completion, with the model lock held until `release`. */
export type AcquiredModel =
  | { kind: 'ok'; state: LoadedModel; release: () => void }
  | { kind: 'no-model'; message: string }
  | { kind: 'cancelled' };

export interface EngineModelsOptions {
  /** The engine's settings as they are now: a request that waits for the lock reads them again. */
  settings: () => CompletionSettings;
  logger: Logger;
  notices: UserNotices;
  /** Override model loading (tests); default: llama.cpp in a model host process, or a model server. */
  loader?: ModelLoader;
  /** Override pulling catalog models (tests). */
  pull?: PullFunction;
  /** Environment and bundled-model lookup for choosing the model (tests). */
  plan?: ModelPlanInputs;
  /** Override the speed measurement `auto` makes after its first pull (tests). */
  measureSpeed?: SpeedMeasurer;
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

export class EngineModels {
  private readonly settings: () => CompletionSettings;
  private readonly logger: Logger;
  private readonly notices: UserNotices;
  private readonly lock = new Mutex();
  private readonly manager: ModelManager;
  private readonly puller: ModelPuller;
  private readonly planInputs: ModelPlanInputs;
  private readonly measureSpeed: SpeedMeasurer;
  private readonly sessions = new WeakMap<CompletionModel, Promise<ModelSession>>();
  private readonly tokenizers = new WeakMap<CompletionModel, LineTokenizer>();
  private readonly statusListeners: ((status: ModelStatus) => void)[] = [];
  private lastStatus?: string;
  /** Whether `auto`'s speed was checked before a load ({@link measureIfUnmeasured}), by threads and cache folder. */
  private readonly speedChecked = new Map<string, Promise<void>>();
  private disposed = false;

  constructor(options: EngineModelsOptions) {
    this.settings = options.settings;
    this.logger = options.logger;
    this.notices = options.notices;
    this.planInputs = options.plan ?? {};
    this.manager = new ModelManager(options.loader ?? loadInModelHost, options.logger, { lock: this.lock, plan: this.planInputs });
    this.puller = new ModelPuller(options.logger, options.pull);
    this.measureSpeed = options.measureSpeed ?? measureInChildProcess;
  }

  /** Loads (or finds) the model the settings ask for, and tells listeners what is in use. */
  async warm(): Promise<ModelState> {
    await this.measureIfUnmeasured();
    const state = await this.manager.get(this.settings());
    this.report(state);
    return state;
  }

  /**
   * The current model with the model lock held. A model replaced (a settings change) while this
   * request waited for the lock is about to be disposed, so the request takes its replacement.
   */
  async acquire(signal: AbortSignal): Promise<AcquiredModel> {
    for (;;) {
      if (this.disposed) return { kind: 'cancelled' };
      const state = await this.warm();
      if (state.kind === 'no-model') return state;
      const release = await this.lock.acquire(signal);
      if (!release) return { kind: 'cancelled' };
      if (this.manager.isCurrent(state.model)) return { kind: 'ok', state, release };
      release();
    }
  }

  async pull(name: string | undefined, onProgress: (progress: ModelPullProgress) => void, signal: AbortSignal): Promise<PullModelResult> {
    const settings = this.settings();
    const plan = planModel(settings, this.planInputs);
    const wanted = name ?? pullTarget(plan, settings);
    const pulled = await this.puller.pullModel(wanted, settings.modelCacheDir || undefined, onProgress, signal);
    if (pulled.kind === 'error') return { kind: 'error', code: pulled.code, message: pulled.message };
    const result = { kind: 'ok' as const, name: wanted, path: pulled.path, source: pulled.source };
    if (settings.model === AUTO_MODEL && plan.speedUnmeasured) await this.measureForAuto(wanted, settings);
    // Loaded now (the plan sees the verified file), so the answer can say completions use it. Where
    // the repository's control pack applies, the plan serves the derived file the pull made.
    const selected = [pulled.path, pulled.derived?.path].includes(planModel(settings, this.planInputs).candidates[0]?.path);
    if (!selected) return { ...result, inUse: false };
    if (!settings.enabled || this.disposed) return { ...result, inUse: true }; // loads at the first completion
    const state = await this.warm();
    // The label names what the pack made of it too (`name+control+lora`).
    const servesWanted = state.kind === 'ok' && !state.isFallback && (state.label === wanted || state.label.startsWith(`${wanted}+`));
    return { ...result, inUse: servesWanted };
  }

  modelToPull(name: string | undefined): string {
    const settings = this.settings();
    return name ?? pullTarget(planModel(settings, this.planInputs), settings);
  }

  /**
   * `auto` whose pick is pulled but whose speed here is not measured for what is served now (an
   * update changed the served file or its adapter, the threads setting changed, another CPU): the
   * machine is measured before the model loads, as after a first pull. Checked once per process,
   * thread count and cache folder. Without it `auto` would stay on the smallest model until
   * someone ran `model speed`.
   */
  private measureIfUnmeasured(): Promise<void> {
    const settings = this.settings();
    if (settings.model !== AUTO_MODEL) return Promise.resolve();
    const key = `${resolveThreads(settings.threads)} ${settings.modelCacheDir}`;
    let checked = this.speedChecked.get(key);
    if (!checked) this.speedChecked.set(key, (checked = this.measureIfPlanUnmeasured(settings)));
    return checked;
  }

  private async measureIfPlanUnmeasured(settings: CompletionSettings): Promise<void> {
    const plan = planModel(settings, this.planInputs);
    const first = plan.candidates[0];
    if (plan.speedUnmeasured && plan.catalogModel && first && !first.isFallback) await this.measureForAuto(plan.catalogModel, settings);
  }

  /**
   * `auto` on a machine not measured yet pulled the smallest model: its speed is measured now,
   * before it loads for completions (which would slow the measurement and be slowed by it), and
   * the plan then names what `auto` picks from it; a larger pick is offered for download.
   */
  private async measureForAuto(model: string, settings: CompletionSettings): Promise<void> {
    await this.measureSpeed(model, resolveThreads(settings.threads), settings.modelCacheDir || undefined, this.logger);
  }

  /**
   * The model server stopped answering (down, slow, refused): the completion is empty, the user is
   * told once, and the status reads `no-model` until a completion succeeds again.
   */
  serverDown(error: ModelServerError): CompletionOutcome {
    const message = `The model server ${this.settings().modelServer} is not answering (${error.failure}): completions are empty until it is ` +
      'back. Start or restart llama-server there, or fix reposhapley.modelServer.';
    this.logger.debug(`model server request failed: ${error.message}`);
    this.notices.notify({ severity: 'warning', message, status: 'no-model' });
    return { kind: 'no-model', message };
  }

  sessionFor(model: CompletionModel): Promise<ModelSession> {
    let session = this.sessions.get(model);
    if (!session) this.sessions.set(model, (session = model.createSession()));
    return session;
  }

  tokenizerFor(model: CompletionModel): LineTokenizer {
    let tokenizer = this.tokenizers.get(model);
    if (!tokenizer) this.tokenizers.set(model, (tokenizer = new LineTokenizer(model)));
    return tokenizer;
  }

  onStatus(listener: (status: ModelStatus) => void): void {
    this.statusListeners.push(listener);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.puller.dispose();
    await this.manager.dispose();
  }

  /**
   * Tells listeners the model in use and whether the one asked for can be pulled, when that
   * changed, and says once why no model, or not the one asked for, is in use.
   */
  private report(state: ModelState): void {
    const { modelServer } = this.settings();
    const offersPull = state.pullable ? { offersPull: true } : {};
    if (state.kind === 'no-model') this.notices.notify({ severity: 'error', message: state.message, status: 'no-model', ...offersPull });
    else if (state.notice) this.notices.notify({ severity: 'warning', message: state.notice, ...offersPull });
    const status: ModelStatus = {
      ...(state.kind === 'ok' ? { model: { label: state.label, fallback: state.isFallback, ...(state.chosenBy ? { chosenBy: state.chosenBy } : {}) } } : {}),
      ...(state.pullable ? { pullable: state.pullable } : {}),
      ...(modelServer ? { modelServer } : {}),
    };
    const key = JSON.stringify(status);
    if (key === this.lastStatus) return;
    this.lastStatus = key;
    for (const listener of this.statusListeners) listener(status);
  }
}

/** What a pull without a name fetches: the model offered (`auto`'s pick, or the smallest before any measurement), else the plan's. */
function pullTarget(plan: ModelPlan, settings: CompletionSettings): string {
  return plan.pullable?.name ?? plan.catalogModel ?? settings.model;
}
