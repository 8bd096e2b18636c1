/**
 * Owns the loaded model: finds it (setting, REPOSHAPLEY_MODEL, the bundled default), loads it
 * lazily and once, reloads when the path, threads or GPU layers change, and turns every failure
 * into one user-facing message with the fix. The server keeps serving without a model.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompletionSettings } from '../../../shared/settings.js';
import type { CompletionModel, LoadModelOptions, LoadModelResult } from '../model/completionModel.js';
import type { Logger } from '../util/logger.js';

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

export class ModelManager {
  private loaded?: { key: string; state: Promise<ModelState> };

  constructor(private readonly loader: ModelLoader, private readonly logger: Logger) {}

  /** The model for these settings, loading (or reloading) it when needed. */
  get(settings: CompletionSettings): Promise<ModelState> {
    const options = this.optionsFor(settings);
    const key = options ? JSON.stringify(options) : 'none';
    if (this.loaded?.key !== key) {
      const previous = this.loaded?.state;
      this.loaded = { key, state: this.load(options, previous) };
    }
    return this.loaded.state;
  }

  async dispose(): Promise<void> {
    const state = await this.loaded?.state;
    this.loaded = undefined;
    if (state?.kind === 'ok') await state.model.dispose();
  }

  private optionsFor(settings: CompletionSettings): LoadModelOptions | undefined {
    const modelPath = settings.modelPath || process.env.REPOSHAPLEY_MODEL || findBundledModel();
    if (!modelPath) return undefined;
    return { path: path.resolve(modelPath), threads: settings.threads, gpuLayers: settings.gpuLayers };
  }

  private async load(options: LoadModelOptions | undefined, previous?: Promise<ModelState>): Promise<ModelState> {
    const old = await previous;
    if (old?.kind === 'ok') await old.model.dispose();
    if (!options) return { kind: 'no-model', message: NO_MODEL_MESSAGE };
    const started = performance.now();
    const result = await this.loader(options, this.logger).catch((error: unknown) => ({
      kind: 'error' as const, message: `Loading ${options.path} failed: ${String(error)}`,
    }));
    if (result.kind !== 'ok') return { kind: 'no-model', message: result.message };
    const { info } = result.model;
    this.logger.info(
      `model ${info.path} loaded in ${Math.round(performance.now() - started)} ms ` +
      `(${info.threads} threads, ${info.gpuLayers} GPU layers, control tokens: ${info.hasControlTokens})`,
    );
    return { kind: 'ok', model: result.model };
  }
}
