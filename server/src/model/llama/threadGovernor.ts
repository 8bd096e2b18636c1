/**
 * Threads that yield: while other processes keep cores busy (a build, a test run, a second editor
 * window's model), the model's evaluations use fewer threads than configured.
 *
 * llama.cpp's worker threads spin at a barrier after each step of a forward pass, waiting for each
 * other. A thread whose core another process holds stalls the rest, so two threads beside one
 * busy process on two cores ran 3.1× slower than alone, and two servers completing at once 9–10×
 * (../shared/PLATFORM-FACTS.md, 2026-12-06), while one thread each kept both at 1.7×. The governor
 * samples how many cores other processes used over the last second (Linux /proc; elsewhere it
 * does nothing) and caps the runtime's threads to the cores left, between one and the configured
 * count. node-llama-cpp reads the cap before every batch it decodes, so a change takes effect
 * within one generated token.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Llama } from 'node-llama-cpp';
import type { Logger } from '../../util/logger.js';

/** CPU time in clock ticks (USER_HZ), machine-wide busy and this process's own, at a moment. */
export interface CpuSample {
  atMs: number;
  busyTicks: number;
  ownTicks: number;
}

/** Linux's USER_HZ: /proc/stat and /proc/self/stat count in it on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;
const SAMPLE_EVERY_MS = 250;
/** Samples kept: the decision looks at the last second. */
const WINDOW_SAMPLES = 5;

/**
 * Busy ticks of the whole machine from /proc/stat's first line that compete with the model: all
 * but idle, iowait and `nice` (user time of processes at lower priority, such as a training job
 * run with `nice`: the scheduler gives a normal-priority thread its core back within
 * microseconds, so they do not stall llama.cpp's threads).
 */
export function busyTicksOf(procStat: string): number | undefined {
  const fields = /^cpu\s+(.*)$/m.exec(procStat)?.[1]?.trim().split(/\s+/).map(Number);
  if (!fields || fields.length < 4 || fields.some((value) => !Number.isFinite(value))) return undefined;
  const [user, , system, , , irq = 0, softirq = 0, steal = 0] = fields;
  return user! + system! + irq + softirq + steal;
}

/** This process's user + system ticks from /proc/self/stat (fields 14 and 15; the name may hold spaces). */
export function ownTicksOf(procSelfStat: string): number | undefined {
  const rest = procSelfStat.slice(procSelfStat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : undefined;
}

/** Cores other processes kept busy between two samples (0 when the interval is empty). */
export function othersBusyCores(from: CpuSample, to: CpuSample): number {
  const seconds = (to.atMs - from.atMs) / 1000;
  if (seconds <= 0) return 0;
  const othersTicks = (to.busyTicks - from.busyTicks) - (to.ownTicks - from.ownTicks);
  return Math.max(0, othersTicks / TICKS_PER_SECOND / seconds);
}

/** The threads to use: the cores others leave, rounded, between one and `limit`. */
export function threadsFor(limit: number, cores: number, othersBusy: number): number {
  return Math.max(1, Math.min(limit, Math.round(cores - othersBusy)));
}

function readProcSample(): CpuSample | undefined {
  try {
    const busyTicks = busyTicksOf(readFileSync('/proc/stat', 'utf8'));
    const ownTicks = ownTicksOf(readFileSync('/proc/self/stat', 'utf8'));
    if (busyTicks === undefined || ownTicks === undefined) return undefined;
    return { atMs: performance.now(), busyTicks, ownTicks };
  } catch {
    return undefined;
  }
}

/** What the governor reads of the machine; tests pass their own. */
export interface MachineReadings {
  sample(): CpuSample | undefined;
  cores(): number;
}

const PROC_READINGS: MachineReadings = { sample: readProcSample, cores: () => os.availableParallelism() };

/** The part of node-llama-cpp's `Llama` the governor sets. */
type ThreadCapped = Pick<Llama, 'maxThreads'>;

interface Governed {
  /** Thread limits of the models sharing this runtime; the cap never exceeds the largest. */
  limits: number[];
  timer: NodeJS.Timeout;
  samples: CpuSample[];
  applied: number;
  readings: MachineReadings;
}

const governed = new Map<ThreadCapped, Governed>();

/**
 * Caps `llama`'s threads to the cores other processes leave, at most `limit`, until the returned
 * function is called. Models sharing a runtime share its governor. Without /proc it does nothing.
 */
export function governThreads(llama: ThreadCapped, limit: number, logger: Logger, readings = PROC_READINGS): () => void {
  if (readings.sample() === undefined) return () => {};
  let entry = governed.get(llama);
  if (!entry) {
    const created: Governed = {
      limits: [], samples: [], applied: llama.maxThreads, readings,
      timer: setInterval(() => tick(llama, created, logger), SAMPLE_EVERY_MS),
    };
    created.timer.unref();
    governed.set(llama, created);
    entry = created;
  }
  entry.limits.push(limit);
  const owner = entry;
  return () => release(llama, owner, limit);
}

function tick(llama: ThreadCapped, entry: Governed, logger: Logger): void {
  const sample = entry.readings.sample();
  if (!sample) return;
  entry.samples.push(sample);
  if (entry.samples.length > WINDOW_SAMPLES) entry.samples.shift();
  if (entry.samples.length < 2) return;
  const othersBusy = othersBusyCores(entry.samples[0]!, sample);
  const threads = threadsFor(Math.max(...entry.limits), entry.readings.cores(), othersBusy);
  if (threads === entry.applied) return;
  logger.debug(`model threads ${entry.applied} -> ${threads}: other processes busy on ${othersBusy.toFixed(2)} cores`);
  entry.applied = threads;
  llama.maxThreads = threads;
}

function release(llama: ThreadCapped, entry: Governed, limit: number): void {
  const index = entry.limits.indexOf(limit);
  if (index >= 0) entry.limits.splice(index, 1);
  if (entry.limits.length > 0 || governed.get(llama) !== entry) return;
  clearInterval(entry.timer);
  governed.delete(llama);
  llama.maxThreads = entry.readings.cores();
}
