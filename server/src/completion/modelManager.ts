/**
 * Owns the loaded model: finds it (setting, REPOSHAPLEY_MODEL, the bundled default), loads it
 * lazily and once, reloads when the path, threads or GPU layers change, retries a failed load
 * once its file changed, and turns every failure into one user-facing message with the fix.
 * The server keeps serving without a model.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompletionSettings } from '../../../shared/settings.js';
import type { CompletionModel, LoadModelOptions, LoadModelResult } from '../model/completionModel.js';
import type { Logger } from '../util/logger.js';
import type { Mutex } from '../util/mutex.js';

/** Loads a model; the default dynamically imports node-llama-cpp only when a model is needed. */
export type ModelLoader = (options: LoadModelOptions, logger: Logger) => Promise<LoadModelResult>;

export type ModelState =
  | { kind: 'ok'; model: CompletionModel }
  | { kind: 'no-model'; message: string };

/** The folder holding the bundled default model (works from src via tsx and from dist). */
export function defaultModelDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'models', 'default');
}

/** The bundled default model file, if one is shipped. */
export function findBundledModel(dir = defaultModelDir()): string | undefined {
  if (!existsSync(dir)) return undefined;
  const ggufs = readdirSync(dir).filter((f) => f.endsWith('.gguf')).sort();
  return ggufs.length > 0 ? path.join(dir, ggufs[0]!) : undefined;
}

export const NO_MODEL_MESSAGE =
  'No model is bundled yet and none is configured. Pass one with `--model PATH` (CLI), ' +
  'set `reposhapley.modelPath` to a GGUF file (editor settings), or set REPOSHAPLEY_MODEL.';

/**
 * How often, at most, the file of a failed load is looked at again (one stat, at a completion
 * request): often enough that a model put back is picked up at the next keystroke or so.
 */
export const RETRY_CHECK_MS = 2_000;

export interface ModelManagerOptions {
  /**
   * The lock completions hold while they use a model. A replaced model is disposed only while
   * holding it, so a running completion never has its model disposed under it.
   */
  lock: Mutex;
  /** Milliseconds clock for the retry throttle (tests). */
  now?: () => number;
}

/** One load: its settings key, its outcome, and for a failure what to watch for a retry. */
interface Load {
  key: string;
  state: Promise<ModelState>;
  failure?: FailedLoad;
}

/** A failed load's file as it was when the load began, and when it was last compared. */
interface FailedLoad {
  path: string;
  stamp: string;
  checkedAt: number;
}

export class ModelManager {
  private current?: Load;
  /** Models in service: a model leaves this set when it is replaced, before it is disposed. */
  private readonly live = new Set<CompletionModel>();
  private readonly lock: Mutex;
  private readonly now: () => number;

  constructor(private readonly loader: ModelLoader, private readonly logger: Logger, options: ModelManagerOptions) {
    this.lock = options.lock;
    this.now = options.now ?? (() => performance.now());
  }

  /** The model for these settings, loading (or reloading) it when needed. */
  get(settings: CompletionSettings): Promise<ModelState> {
    const options = this.optionsFor(settings);
    const key = options ? JSON.stringify(options) : 'none';
    if (this.current?.key !== key || this.shouldRetry(this.current)) this.current = this.startLoad(key, options);
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

  private optionsFor(settings: CompletionSettings): LoadModelOptions | undefined {
    const modelPath = settings.modelPath || process.env.REPOSHAPLEY_MODEL || findBundledModel();
    if (!modelPath) return undefined;
    return { path: path.resolve(modelPath), threads: settings.threads, gpuLayers: settings.gpuLayers };
  }

  /**
   * A failed load is tried again once its file changed (put back, replaced, repaired), so the
   * user need not restart or touch a setting. Checked at most every RETRY_CHECK_MS: this runs on
   * every completion request, and the same failure is then reported once, not per keystroke.
   */
  private shouldRetry(load: Load): boolean {
    const failure = load.failure;
    if (!failure || this.now() - failure.checkedAt < RETRY_CHECK_MS) return false;
    failure.checkedAt = this.now();
    return fileStamp(failure.path) !== failure.stamp;
  }

  private startLoad(key: string, options: LoadModelOptions | undefined): Load {
    const load: Load = {
      key,
      state: this.load(options, this.current?.state).then((outcome) => {
        load.failure = outcome.failure;
        return outcome.state;
      }),
    };
    return load;
  }

  private async load(
    options: LoadModelOptions | undefined, previous: Promise<ModelState> | undefined,
  ): Promise<{ state: ModelState; failure?: FailedLoad }> {
    const old = await previous;
    if (old?.kind === 'ok') await this.retire(old.model);
    if (!options) return { state: { kind: 'no-model', message: NO_MODEL_MESSAGE } };
    // Stamped before loading: a file that changes while it loads is seen as changed afterwards.
    const stamp = fileStamp(options.path);
    const started = performance.now();
    const result = await this.loader(options, this.logger).catch((error: unknown) => ({
      kind: 'error' as const, message: `Loading ${options.path} failed: ${String(error)}`,
    }));
    if (result.kind !== 'ok') {
      return {
        state: { kind: 'no-model', message: result.message },
        failure: { path: options.path, stamp, checkedAt: this.now() },
      };
    }
    const { info } = result.model;
    this.logger.info(
      `model ${info.path} loaded in ${Math.round(performance.now() - started)} ms ` +
      `(${info.threads} threads, ${info.gpuLayers} GPU layers, control tokens: ${info.hasControlTokens})`,
    );
    this.live.add(result.model);
    return { state: { kind: 'ok', model: result.model } };
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

/** What a model file looks like from outside: absent, or its size, change time and inode. */
function fileStamp(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  } catch {
    return 'absent';
  }
}
