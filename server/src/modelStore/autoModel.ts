/**
 * `model: "auto"`: the largest catalog model this machine runs within the latency targets, judged
 * from speeds measured here (model/llama/measureSpeed.ts, kept per machine by machineSpeed.ts),
 * never from a guess by core count. A model measured here is judged by its own speeds; one not
 * measured yet by the measured one's speeds scaled by the catalog's cost ratios.
 */
import { QUICK_FIRST_BUDGETS } from '../../../shared/settings.js';
import { MODEL_CATALOG, type CatalogEntry } from './catalog.js';
import { servedAdapter } from './cacheDir.js';
import { machineKey, measurementsFor, readSpeedMeasurements, type SpeedMeasurement } from './machineSpeed.js';

/** The setting value that asks for this choice. */
export const AUTO_MODEL = 'auto';

/** The latency a user should get (issue 48): keystroke to ghost text at p95, and spawn to first answer. */
export const LATENCY_TARGETS = { keystrokeMs: 1_000, coldStartMs: 5_000 } as const;

/** Prompt tokens of a quick first answer at most: the cold start reads no more. */
const QUICK_FIRST_TOKENS = QUICK_FIRST_BUDGETS.prefixTokens + QUICK_FIRST_BUDGETS.suffixTokens + QUICK_FIRST_BUDGETS.chunkTokens;

/**
 * The work behind those latencies. While typing, most keystrokes are answered from the cache; the
 * slow ones (the p95) are model requests that read what changed past the cached prompt and
 * generate the rest of a line. A cold start loads the model and answers from the short prompt of
 * a quick first answer (`quickFirstAnswer`), the server's own start overlapping the load.
 * Fitted on a 2-core AMX Xeon, 2026-12-06 (docs/benchmarks.md, "Which model `auto` picks"): the
 * typing replay's keystroke p95 of both catalog models (466 and 1,160 ms) gives the two typing
 * figures, the 0.5B's cold start on `rich` (4.85 s) the overhead.
 */
export const REFERENCE_WORK = {
  typing: { promptTokens: 32, generatedTokens: 10 },
  coldStart: { promptTokens: QUICK_FIRST_TOKENS, generatedTokens: 8, overheadMs: 300 },
} as const;

/** The time one model is expected to take here. */
export interface PredictedLatency {
  model: string;
  keystrokeMs: number;
  coldStartMs: number;
  /** Where the speeds came from: measured for this model, or scaled from another's measurement. */
  basis: 'measured' | `scaled from ${string}`;
  promptTokensPerSecond: number;
  meetsTargets: boolean;
}

export interface AutoChoice {
  /** The catalog model to use. */
  model: string;
  /** One line for the log, status and trace: which model and why. */
  reason: string;
  /** Every catalog model's prediction, smallest first (empty when nothing was measured). */
  predictions: PredictedLatency[];
  /** True when no speed was measured on this machine yet: the choice is then the smallest model. */
  unmeasured: boolean;
}

/**
 * Picks the largest catalog model predicted to meet both targets; the smallest when none does
 * (it is the fastest there is); the smallest, said as unmeasured, before any measurement.
 */
export function chooseAutoModel(measurements: readonly SpeedMeasurement[], catalog: readonly CatalogEntry[] = MODEL_CATALOG): AutoChoice {
  const bySize = [...catalog].sort((a, b) => a.sizeBytes - b.sizeBytes);
  const smallest = bySize[0]!;
  const predictions = bySize.map((entry) => predict(entry, measurements, catalog)).filter((p): p is PredictedLatency => p !== undefined);
  if (predictions.length === 0) {
    return {
      model: smallest.name, predictions, unmeasured: true,
      reason: `${smallest.name}: this machine's speed is not measured yet (run "reposhapley model speed")`,
    };
  }
  const fitting = predictions.filter((p) => p.meetsTargets);
  const chosen = fitting.at(-1) ?? predictions[0]!;
  const larger = predictions.find((p) => sizeOf(p.model, catalog) > sizeOf(chosen.model, catalog));
  return { model: chosen.model, predictions, unmeasured: false, reason: reasonFor(chosen, larger) };
}

/** The prediction for one catalog model, or undefined when no measurement bears on it. */
export function predict(entry: CatalogEntry, measurements: readonly SpeedMeasurement[], catalog: readonly CatalogEntry[] = MODEL_CATALOG): PredictedLatency | undefined {
  const own = measurements.find((m) => m.model === entry.name);
  const reference = own ?? measurements.find((m) => catalog.some((c) => c.name === m.model));
  if (!reference) return undefined;
  const referenceEntry = catalog.find((c) => c.name === reference.model)!;
  const scale = own ? { prompt: 1, generate: 1, load: 1 } : costRatio(entry, referenceEntry);
  const promptTokensPerSecond = reference.promptTokensPerSecond / scale.prompt;
  const shortPromptTokensPerSecond = reference.shortPromptTokensPerSecond / scale.prompt;
  const generatedTokensPerSecond = reference.generatedTokensPerSecond / scale.generate;
  const readMs = (tokens: number, perSecond: number) => (tokens / perSecond) * 1000;
  const { typing, coldStart } = REFERENCE_WORK;
  const keystrokeMs = readMs(typing.promptTokens, shortPromptTokensPerSecond) + readMs(typing.generatedTokens, generatedTokensPerSecond);
  const coldStartMs = reference.loadMs * scale.load + coldStart.overheadMs +
    readMs(coldStart.promptTokens, promptTokensPerSecond) + readMs(coldStart.generatedTokens, generatedTokensPerSecond);
  return {
    model: entry.name, keystrokeMs, coldStartMs, promptTokensPerSecond,
    basis: own ? 'measured' : `scaled from ${reference.model}`,
    meetsTargets: keystrokeMs <= LATENCY_TARGETS.keystrokeMs && coldStartMs <= LATENCY_TARGETS.coldStartMs,
  };
}

/** How much more `entry` costs than `reference` per prompt token, per generated token and to load. */
function costRatio(entry: CatalogEntry, reference: CatalogEntry): { prompt: number; generate: number; load: number } {
  return {
    prompt: entry.relativeCost.prompt / reference.relativeCost.prompt,
    generate: entry.relativeCost.generate / reference.relativeCost.generate,
    load: entry.sizeBytes / reference.sizeBytes,
  };
}

function sizeOf(name: string, catalog: readonly CatalogEntry[]): number {
  return catalog.find((c) => c.name === name)?.sizeBytes ?? 0;
}

/** "qwen2.5-coder-0.5b: 480 prompt tok/s measured; qwen2.5-coder-1.5b would answer keystrokes in 1.4 s (target 1 s)". */
function reasonFor(chosen: PredictedLatency, larger: PredictedLatency | undefined): string {
  const speed = `${Math.round(chosen.promptTokensPerSecond)} prompt tok/s ${chosen.basis === 'measured' ? 'measured' : `(${chosen.basis})`}`;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const own = chosen.meetsTargets
    ? `within the targets (keystroke ${seconds(chosen.keystrokeMs)}, cold start ${seconds(chosen.coldStartMs)})`
    : `the fastest in the catalog, though over the targets here (keystroke ${seconds(chosen.keystrokeMs)}, cold start ${seconds(chosen.coldStartMs)})`;
  const next = larger
    ? `; ${larger.model} would take keystroke ${seconds(larger.keystrokeMs)}, cold start ${seconds(larger.coldStartMs)} ` +
      `(targets ${seconds(LATENCY_TARGETS.keystrokeMs)} and ${seconds(LATENCY_TARGETS.coldStartMs)})`
    : '';
  return `${chosen.model}: ${speed}, ${own}${next}`;
}

/** The choice for this machine at `threads`, from the measurements kept in `cacheDir`. */
export function chooseAutoModelHere(cacheDir: string, threads: number, catalog: readonly CatalogEntry[] = MODEL_CATALOG): AutoChoice {
  const servedWith = (model: string) => servedAdapter(model, cacheDir)?.sha256;
  return chooseAutoModel(measurementsFor(readSpeedMeasurements(cacheDir), threads, machineKey(), servedWith), catalog);
}
