/**
 * The soak's figures: requests classified against the stated bounds, latency quantiles, and the
 * resident memory of the server and of its model host processes, sampled from /proc/PID/status.
 */
import type { Answer } from '../../test/reliability/rawLspClient.js';

/** One completion request and what became of it. */
export interface RequestRecord {
  id: string;
  sentAt: number;
  cancelledAt?: number;
  answeredAt?: number;
  answer?: Answer;
}

/** Distribution summary in ms. */
export interface Quantiles {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

/** What one phase's requests did. */
export interface PhaseReport {
  requests: number;
  /** Answered before the next request was sent: what a user would see. */
  shown: number;
  /** Shown answers with a completion in them. */
  withText: number;
  /** Cancelled by the client because the next keystroke came first. */
  cancelled: number;
  /** Answers with RequestCancelled (-32800) rather than a result. */
  cancelledErrors: number;
  /** Other errors (should be none). */
  errors: number;
  /** Send-to-answer latency of shown requests. */
  shownLatencyMs: Quantiles;
  /** Cancel-to-answer time of cancelled requests. */
  cancelSettleMs: Quantiles;
  /** Send-to-answer of every request. */
  answerMs: Quantiles;
  /** Requests never answered, answered later than answerBoundMs, or later than cancelBoundMs after their cancellation. */
  stuck: number;
  wallMs: number;
}

/** Resident memory of one process, or of the model hosts together (KiB). */
export interface MemoryReport {
  /** RSS right after initialize, before indexing. */
  initialKiB: number;
  /** Median RSS in the window just after warm-up, and in the last window of the replay. */
  startKiB: number;
  endKiB: number;
  /** endKiB / startKiB - 1. */
  growth: number;
  peakKiB: number;
  burstStartKiB: number;
  burstEndKiB: number;
}

/** One reading of the watched processes: the server, and its model host children summed. */
export interface MemoryReading {
  serverKiB: number;
  /** The llama.cpp child processes (model weights, contexts, KV caches); 0 when the model runs in-process. */
  hostKiB: number;
}

/** The soak's memory: the server's and the model hosts', each judged on its own growth. */
export interface MemoryReports {
  server: MemoryReport;
  modelHost: MemoryReport;
  /** [seconds since indexing ended, edits done (-1 in the burst), server KiB, model host KiB] every second. */
  samples: [number, number, number, number][];
}

export function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), max: at(1) };
}

/** Classifies the requests of one phase against the bounds. */
export function summarize(records: RequestRecord[], answerBoundMs: number, cancelBoundMs: number, wallMs: number): PhaseReport {
  const shown = records.filter((r) => r.cancelledAt === undefined && r.answeredAt !== undefined);
  const cancelled = records.filter((r) => r.cancelledAt !== undefined);
  const isStuck = (r: RequestRecord): boolean => r.answeredAt === undefined
    || r.answeredAt - r.sentAt > answerBoundMs
    || (r.cancelledAt !== undefined && r.answeredAt - r.cancelledAt > cancelBoundMs);
  const items = (r: RequestRecord): number => ((r.answer?.result as { items?: unknown[] } | undefined)?.items ?? []).length;
  return {
    requests: records.length,
    shown: shown.length,
    withText: shown.filter((r) => items(r) > 0).length,
    cancelled: cancelled.length,
    cancelledErrors: records.filter((r) => r.answer?.error?.code === -32800).length,
    errors: records.filter((r) => r.answer?.error && r.answer.error.code !== -32800).length,
    shownLatencyMs: quantiles(shown.map((r) => r.answeredAt! - r.sentAt)),
    cancelSettleMs: quantiles(cancelled.filter((r) => r.answeredAt !== undefined).map((r) => r.answeredAt! - r.cancelledAt!)),
    answerMs: quantiles(records.filter((r) => r.answeredAt !== undefined).map((r) => r.answeredAt! - r.sentAt)),
    stuck: records.filter(isStuck).length,
    wallMs,
  };
}

/** Reads the memory every second, tagged with the edits done so far. */
export class MemorySampler {
  edits = 0;
  private readonly samples: [number, number, number, number][] = [];
  private timer?: NodeJS.Timeout;
  private readonly started = performance.now();

  constructor(private readonly read: () => MemoryReading | undefined) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 1000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const reading = this.read();
    if (!reading) return;
    const seconds = Math.round((performance.now() - this.started) / 1000);
    this.samples.push([seconds, this.edits, reading.serverKiB, reading.hostKiB]);
  }

  /**
   * Start = median RSS over the samples taken while the edits went from `warmupEdits` to
   * `warmupEdits` + 5% of the run; end = median over the last 5% of the edits.
   */
  report(initial: MemoryReading, warmupEdits: number, edits: number, burstStart: MemoryReading, burstEnd: MemoryReading): MemoryReports {
    const column = (index: 2 | 3, pick: (r: MemoryReading) => number): MemoryReport =>
      processReport(this.samples.map((s) => [s[1], s[index]]), pick(initial), warmupEdits, edits, pick(burstStart), pick(burstEnd));
    return {
      server: column(2, (r) => r.serverKiB),
      modelHost: column(3, (r) => r.hostKiB),
      samples: this.samples,
    };
  }
}

/** One process's report from its [edits, KiB] samples. */
function processReport(
  samples: [number, number][], initialKiB: number, warmupEdits: number, edits: number, burstStartKiB: number, burstEndKiB: number,
): MemoryReport {
  const window = Math.max(1, Math.round(edits * 0.05));
  const replay = samples.filter(([e]) => e >= 0);
  const median = (values: number[]): number => quantiles(values).p50;
  const startWindow = replay.filter(([e]) => e >= warmupEdits && e <= warmupEdits + window).map(([, kib]) => kib);
  const endWindow = replay.filter(([e]) => e >= edits - window).map(([, kib]) => kib);
  const startKiB = median(startWindow.length > 0 ? startWindow : replay.map(([, kib]) => kib));
  const endKiB = median(endWindow.length > 0 ? endWindow : [replay.at(-1)?.[1] ?? 0]);
  return {
    initialKiB, startKiB, endKiB, growth: startKiB > 0 ? endKiB / startKiB - 1 : Number.NaN,
    peakKiB: Math.max(0, ...samples.map(([, kib]) => kib)), burstStartKiB, burstEndKiB,
  };
}
