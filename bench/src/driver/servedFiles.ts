/**
 * What a bench run's servers load, by content: the SHA-256 of the model file and of the LoRA
 * adapter the server resolves from the run's settings. A run journals these instead of the
 * `--model` and `--adapter` it was given, so two runs pair (resume, `--reuse`) when they served
 * the same bytes, however those were named: a run without `--model` that got the pulled default
 * lends to one that named the same file, and a pack updated under an interrupted run is caught
 * rather than mixed in.
 */
import { candidateAdapter, planModel, type ModelPlanInputs } from '../../../server/src/completion/modelChoice.js';
import { sha256File } from '../../../server/src/modelStore/verify.js';
import { verifiedHash } from '../../../server/src/modelStore/sidecar.js';
import { DEFAULT_SETTINGS, type SettingsPatch } from '../../../shared/settings.js';

/** The content identity of the files a run serves. */
export interface ServedFiles {
  modelSha256: string;
  /** Absent when no adapter is applied. */
  adapterSha256?: string;
}

/**
 * The files the server would load for `settings` (the first candidate of its model plan, and the
 * adapter setting or else the control pack's), hashed; undefined when no local file serves (a
 * model server, or no model at all), so the run keeps naming its model by its flags.
 */
export async function servedFiles(settings: SettingsPatch, inputs: ModelPlanInputs = {}): Promise<ServedFiles | undefined> {
  const plan = planModel({
    modelPath: settings.modelPath ?? DEFAULT_SETTINGS.modelPath,
    model: settings.model ?? DEFAULT_SETTINGS.model,
    modelCacheDir: settings.modelCacheDir ?? DEFAULT_SETTINGS.modelCacheDir,
    modelServer: settings.modelServer ?? DEFAULT_SETTINGS.modelServer,
  }, inputs);
  const first = plan.candidates[0];
  if (!first || first.remote) return undefined;
  const adapter = candidateAdapter(first, settings.adapterPath);
  return {
    modelSha256: await fileSha256(first.path),
    ...(adapter ? { adapterSha256: await fileSha256(adapter) } : {}),
  };
}

/** A verified cache file's recorded hash (no read), else the file hashed. */
async function fileSha256(file: string): Promise<string> {
  return verifiedHash(file) ?? sha256File(file);
}
