/**
 * Model speeds measured on this machine, kept in the model cache (`machine-speed.json`) so that
 * `model: "auto"` decides from a measurement made once, not at every start. A measurement belongs
 * to a machine (CPU model and cores), the threads it ran on, and the llama.cpp build that ran it:
 * another CPU, thread count or build measures again.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One model's speed here, as model/llama/measureSpeed.ts measures it. */
export interface SpeedMeasurement {
  /** Catalog name of the model measured. */
  model: string;
  /** {@link machineKey} of where it ran. */
  machine: string;
  threads: number;
  /** The llama.cpp build (node-llama-cpp version and backend: `3.x cpu`, `3.x cuda`). */
  runtime: string;
  /** Loading the model file, making a context and its first evaluation. */
  loadMs: number;
  /** Reading a whole prompt cold (832 tokens: a cold start, a jump to another file). */
  promptTokensPerSecond: number;
  /** Reading a short prompt cold (96 tokens: what a keystroke's request reads past its cache). */
  shortPromptTokensPerSecond: number;
  generatedTokensPerSecond: number;
  /**
   * SHA-256 of the LoRA adapter the model ran with, as its pack pins it (an adapter slows prompts:
   * llama.cpp cannot use the AMX buffers with one); absent: none. A measurement with another
   * adapter than the model is served with now does not count (cacheDir.ts servedAdapter).
   */
  adapter?: string;
  /** The 1-minute load average when it ran: a busy machine measures slow. */
  loadAverage: number;
  /** ISO time. */
  measuredAt: string;
}

interface SpeedFile {
  version: 1;
  measurements: SpeedMeasurement[];
}

const FILE_NAME = 'machine-speed.json';

let thisMachine: string | undefined;

/** This machine as measurements know it: CPU model and core count (read once: the server asks at every request). */
export function machineKey(): string {
  thisMachine ??= `${os.cpus()[0]?.model.trim() || os.arch()} × ${os.availableParallelism()}`;
  return thisMachine;
}

export function speedFilePath(cacheDir: string): string {
  return path.join(cacheDir, FILE_NAME);
}

/** The last file read, by its path and stamp: the server plans its model at every request. */
let lastRead: { path: string; stamp: string; measurements: readonly SpeedMeasurement[] } | undefined;

/**
 * Every measurement in the cache (none when the file is missing or unreadable: measure again).
 * Read again only when the file changed (a stat otherwise).
 */
export function readSpeedMeasurements(cacheDir: string): readonly SpeedMeasurement[] {
  const file = speedFilePath(cacheDir);
  let stamp: string;
  try {
    const { ino, size, mtimeNs } = statSync(file, { bigint: true });
    stamp = `${ino}:${size}:${mtimeNs}`;
  } catch {
    return [];
  }
  if (lastRead?.path === file && lastRead.stamp === stamp) return lastRead.measurements;
  let measurements: readonly SpeedMeasurement[];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<SpeedFile>;
    measurements = Array.isArray(parsed.measurements) ? parsed.measurements.filter(isMeasurement) : [];
  } catch {
    measurements = [];
  }
  lastRead = { path: file, stamp, measurements };
  return measurements;
}

/**
 * The measurements that hold for this machine and thread count, one per model (the newest), made
 * with the adapter `servedAdapter` says the model runs with now.
 */
export function measurementsFor(
  all: readonly SpeedMeasurement[], threads: number, machine = machineKey(), servedAdapter: (model: string) => string | undefined = () => undefined,
): SpeedMeasurement[] {
  const newestFirst = all.filter((m) => m.machine === machine && m.threads === threads && m.adapter === servedAdapter(m.model))
    .sort((a, b) => b.measuredAt.localeCompare(a.measuredAt));
  return newestFirst.filter((m, i) => newestFirst.findIndex((other) => other.model === m.model) === i);
}

/** Adds a measurement, replacing the one for the same model, machine, threads and runtime (whatever its adapter). */
export function saveSpeedMeasurement(cacheDir: string, measurement: SpeedMeasurement): void {
  const kept = readSpeedMeasurements(cacheDir).filter((m) =>
    !(m.model === measurement.model && m.machine === measurement.machine && m.threads === measurement.threads && m.runtime === measurement.runtime));
  const file: SpeedFile = { version: 1, measurements: [...kept, measurement] };
  mkdirSync(cacheDir, { recursive: true });
  // Written whole and renamed, so a server reading it at the same moment never sees half a file.
  const temporary = `${speedFilePath(cacheDir)}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`);
  renameSync(temporary, speedFilePath(cacheDir));
}

function isMeasurement(value: unknown): value is SpeedMeasurement {
  const m = value as Partial<SpeedMeasurement> | null;
  return typeof m?.model === 'string' && typeof m.machine === 'string' && typeof m.threads === 'number' &&
    typeof m.runtime === 'string' && typeof m.measuredAt === 'string' && (m.adapter === undefined || typeof m.adapter === 'string') &&
    [m.loadMs, m.promptTokensPerSecond, m.shortPromptTokensPerSecond, m.generatedTokensPerSecond].every((n) => typeof n === 'number' && Number.isFinite(n) && n > 0);
}
