/**
 * Which model file to load, in order: the `modelPath` setting, `REPOSHAPLEY_MODEL`, else the
 * catalog model the `model` setting names from the per-user cache, once `reposhapley model pull`
 * has verified it. The default, `auto`, names the largest catalog model this machine runs within
 * the latency targets, by its measured speed (modelStore/autoModel.ts); while that one is not
 * pulled, a smaller pulled one stands in and the pick is offered for download. When the model is
 * not there (not pulled, an interrupted pull, a file changed since it was verified, a name not in
 * the catalog) or fails to load, the small model bundled in `models/default/` stands in, and the
 * user is told once why and how to fix it. Cheap enough to run at every request: a few stats and
 * tiny reads.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { PullableModel } from '../../../shared/messages.js';
import type { CompletionSettings, SettingsPatch } from '../../../shared/settings.js';
import { AUTO_MODEL, chooseAutoModelHere, type AutoChoice } from '../modelStore/autoModel.js';
import { MODEL_CATALOG, resolveCatalogModel } from '../modelStore/catalog.js';
import { resolveThreads } from '../model/threads.js';
import { packageRoot } from '../util/packageRoot.js';
import { baseModelAdapter, cachedDerivedModel, cachedModelPath, pullHint, resolveCacheDir } from '../modelStore/cacheDir.js';
import type { ControlPack } from '../modelStore/controlPack.js';

/** One file to try, with what to call it in traces and the status bar. */
export interface ModelCandidate {
  path: string;
  /** A catalog name, or the file's name. */
  label: string;
  /** True for the bundled small model standing in for the one asked for. */
  isFallback: boolean;
  /** How to fetch this file again when it fails to load (a pulled catalog model). */
  repair?: string;
  /** `path` is the URL of a model server (the `modelServer` setting), not a file. */
  remote?: boolean;
  /** The LoRA adapter trained for this file (its control pack's), unless the adapterPath setting names one. */
  adapterPath?: string;
  /**
   * The file's sidecar says it hashed to a pin of the catalog or of a control pack: byte for byte
   * a file llama.cpp loads (CI loads them), so its vocabulary may be read while the host loads it.
   */
  hashPinned?: boolean;
}

/**
 * The LoRA adapter a candidate loads with: the adapterPath setting, else the one its control pack
 * trained for it. An adapter is trained on one model: the fallback and a model server run without.
 */
export function candidateAdapter(candidate: ModelCandidate, adapterSetting: string | undefined): string | undefined {
  if (candidate.isFallback || candidate.remote) return undefined;
  return adapterSetting || candidate.adapterPath;
}

/** Files to try in order, and why the first is a fallback, when it is. */
export interface ModelPlan {
  candidates: ModelCandidate[];
  /** Why the model asked for is not among the candidates; shown once, with the fix. */
  notice?: string;
  /** The catalog model asked for, when pulling it is the fix (not in the cache, or not verified). */
  pullable?: PullableModel;
  /** The catalog model the plan is for: the `model` setting, or what `auto` picked. */
  catalogModel?: string;
  /** Why `auto` picked it ("qwen2.5-coder-0.5b: 480 prompt tok/s measured, ..."), for the log, status and trace. */
  chosenBy?: string;
  /** True when `auto` had no speed measured here yet (a pull through the server measures it). */
  speedUnmeasured?: boolean;
}

/** The folder holding the bundled small model (works from src and from dist). */
export function defaultModelDir(): string {
  return path.join(packageRoot(), 'models', 'default');
}

/** The bundled small model file, if this build ships one. */
export function findBundledModel(dir = defaultModelDir()): string | undefined {
  if (!existsSync(dir)) return undefined;
  const ggufs = readdirSync(dir).filter((f) => f.endsWith('.gguf')).sort();
  return ggufs.length > 0 ? path.join(dir, ggufs[0]!) : undefined;
}

export interface ModelPlanInputs {
  env?: NodeJS.ProcessEnv;
  bundled?: () => string | undefined;
  /** The control pack manifest of a catalog model (default: read from the repository's models/control). */
  controlPack?: (name: string) => ControlPack | undefined;
  /** The adapter an adapter pack trained for a catalog model's base file (default: models/adapters, cacheDir.ts baseModelAdapter). */
  baseAdapter?: (name: string) => string | undefined;
  /** What `auto` picks with the measurements in a cache folder at these threads (default: chooseAutoModelHere). */
  autoChoice?: (cacheDir: string, threads: number) => AutoChoice;
}

/**
 * A command line's `--model`: a file (relative to where the user typed it), or a catalog name
 * (`qwen2.5-coder-1.5b`) when no such file exists.
 */
export function modelSettingsFromArgument(value: string | undefined): Pick<SettingsPatch, 'model' | 'modelPath'> {
  if (!value) return {};
  const isCatalogName = !existsSync(value) && resolveCatalogModel(value).kind === 'ok';
  return isCatalogName ? { model: value } : { modelPath: path.resolve(value) };
}

/**
 * A tool's `--model` as a file: an existing file, else the pulled file of a catalog model; an
 * Error saying which is missing otherwise.
 */
export function modelFileFromArgument(value: string): string {
  if (existsSync(value)) return value;
  const cached = cachedModelPath(value);
  if (cached.kind === 'error') throw new Error(`--model ${value}: no such file, and ${cached.message}`);
  if (!cached.exists) throw new Error(`--model ${value}: not pulled yet; run \`reposhapley model pull ${value}\``);
  return cached.path;
}

type PlanSettings = Pick<CompletionSettings, 'modelPath' | 'model' | 'modelCacheDir'> & Partial<Pick<CompletionSettings, 'modelServer' | 'threads'>>;

/** The files to try for these settings. */
export function planModel(settings: PlanSettings, inputs: ModelPlanInputs = {}): ModelPlan {
  // A team's model server replaces every local file: no fallback answers in its place, so a
  // server that is down shows as such instead of as worse completions.
  if (settings.modelServer) return { candidates: [{ path: settings.modelServer, label: settings.modelServer, isFallback: false, remote: true }] };
  const env = inputs.env ?? process.env;
  const bundledPath = (inputs.bundled ?? findBundledModel)();
  const fallback: ModelCandidate[] = bundledPath
    ? [{ path: bundledPath, label: path.basename(bundledPath), isFallback: true }]
    : [];
  if (settings.modelPath) {
    // An explicit model that cannot be used is an error to fix, not a reason to switch models.
    const problem = modelPathProblem(settings.modelPath);
    if (problem) return { candidates: [], notice: problem };
    return { candidates: [{ path: settings.modelPath, label: path.basename(settings.modelPath), isFallback: false }] };
  }
  // The environment variable is a shell user's: a relative path means the working directory.
  const fromEnv = env.REPOSHAPLEY_MODEL;
  if (fromEnv) return { candidates: [{ path: path.resolve(fromEnv), label: path.basename(fromEnv), isFallback: false }] };
  if (settings.model === AUTO_MODEL) return planAutoModel(settings, inputs, fallback);
  return planCatalogModel(settings, inputs, fallback);
}

/**
 * `auto`: the plan for the model it picks here; while that one is not pulled, the largest smaller
 * one that is stands in (better than the bundled fallback), and the pick is what a pull fetches.
 */
function planAutoModel(settings: PlanSettings, inputs: ModelPlanInputs, fallback: ModelCandidate[]): ModelPlan {
  // The folder cachedModelPath reads: the setting, else the environment's cache.
  const cacheDir = resolveCacheDir({ cacheDir: settings.modelCacheDir || undefined });
  const choice = (inputs.autoChoice ?? chooseAutoModelHere)(cacheDir, resolveThreads(settings.threads ?? 0));
  const chosenBy = `auto: ${choice.reason}`;
  const auto = { chosenBy, ...(choice.unmeasured ? { speedUnmeasured: true } : {}) };
  const picked = planCatalogModel({ ...settings, model: choice.model }, inputs, fallback);
  if (picked.catalogModel === choice.model && !picked.pullable) return { ...picked, ...auto };
  const chosenSize = MODEL_CATALOG.find((entry) => entry.name === choice.model)?.sizeBytes ?? 0;
  const smaller = MODEL_CATALOG.filter((entry) => entry.sizeBytes < chosenSize).sort((a, b) => b.sizeBytes - a.sizeBytes);
  for (const entry of smaller) {
    const standIn = planCatalogModel({ ...settings, model: entry.name }, inputs, fallback);
    if (standIn.pullable || standIn.candidates[0]?.isFallback !== false) continue;
    // No speeds in it: the notice is part of what decides a reload (modelManager), the speeds are not.
    const notice = `The model setting auto picks ${choice.model} on this machine; it is not downloaded yet: ${pullHint(choice.model)}; until then completions use ${entry.name}.`;
    return { ...standIn, ...auto, notice, ...(picked.pullable ? { pullable: picked.pullable } : {}), catalogModel: entry.name };
  }
  return { ...picked, ...auto };
}

function planCatalogModel(settings: PlanSettings, inputs: ModelPlanInputs, fallback: ModelCandidate[]): ModelPlan {
  const cached = cachedModelPath(settings.model, settings.modelCacheDir || undefined);
  if (cached.kind === 'error') return { candidates: fallback, notice: withFallback(cached.message, fallback) };
  if (cached.verified) {
    const repair = `Run "reposhapley model pull ${settings.model} --verify" to check and fetch it again` +
      (fallback.length > 0 ? '; until then completions use the small bundled model.' : '.');
    const base: ModelCandidate = { path: cached.path, label: settings.model, isFallback: false, repair, hashPinned: true };
    const pulled = withControlTokens(settings, base, inputs);
    return { ...pulled, candidates: [...pulled.candidates, ...fallback], catalogModel: settings.model };
  }
  const why = cached.exists
    ? `The model ${settings.model} at ${cached.path} is not verified (an interrupted pull, or the file changed since)`
    : `The model ${settings.model} is not downloaded yet`;
  const { name, sizeBytes, license } = cached.entry;
  return {
    candidates: fallback, notice: withFallback(`${why}: ${pullHint(settings.model)}.`, fallback),
    pullable: { name, sizeBytes, license }, catalogModel: settings.model,
  };
}

/**
 * The pulled model with its control pack applied comes first when the cache has it; a trained
 * pack not applied yet is worth a pull, and says so.
 */
function withControlTokens(
  settings: Pick<CompletionSettings, 'model' | 'modelCacheDir'>, base: ModelCandidate, inputs: ModelPlanInputs,
): Pick<ModelPlan, 'candidates' | 'notice'> {
  const derived = cachedDerivedModel(settings.model, settings.modelCacheDir || undefined, inputs.controlPack);
  if (!derived) return withBaseAdapter(settings.model, base, inputs);
  if (derived.verified) {
    const adapter = derived.adapterPath ? { adapterPath: derived.adapterPath } : {};
    return { candidates: [{ ...base, path: derived.path, label: `${settings.model}+control${derived.adapterPath ? '+lora' : ''}`, ...adapter }, base] };
  }
  if (!derived.trained) return { candidates: [base] };
  return {
    candidates: [base],
    notice: `The model ${settings.model} has trained RepoShapley control tokens that are not applied yet: ${pullHint(settings.model)}.`,
  };
}

/** The base file with its adapter pack's LoRA first, then without (a file the adapter does not load with). */
function withBaseAdapter(model: string, base: ModelCandidate, inputs: ModelPlanInputs): Pick<ModelPlan, 'candidates'> {
  const adapterPath = (inputs.baseAdapter ?? baseModelAdapter)(model);
  return { candidates: adapterPath ? [{ ...base, label: `${model}+lora`, adapterPath }, base] : [base] };
}

/**
 * Why the `modelPath` setting cannot name a model file: a URL, or a relative path (relative to
 * what? the server's working directory is the editor's business). Undefined when it is usable.
 */
export function modelPathProblem(value: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^(https?|ftp):/i.test(value)) {
    return `modelPath "${value}" is a URL; it takes a GGUF file on this machine. To download a catalog model, set reposhapley.model and run "reposhapley model pull".`;
  }
  if (!path.isAbsolute(value)) {
    return `modelPath "${value}" is not an absolute path; give the GGUF file's full path, or leave modelPath empty and set reposhapley.model to a catalog name.`;
  }
  return undefined;
}

function withFallback(message: string, fallback: readonly ModelCandidate[]): string {
  return fallback.length > 0
    ? `${message} Until then completions use the small bundled model, which is rarely right.`
    : message;
}
