/**
 * The soak: the built server (`main.js serve --stdio`) driven over stdio as an editor drives it,
 * for a long time. Phase 1 replays typing (bench/src/soakTyping.ts) with an automatic inline
 * completion request per keystroke, cancelling the previous one when it is still open (as VS
 * Code does). Phase 2 is a burst: requests at a fixed rate (100/s), each cancelling the one before.
 * Every request must be answered (a result or RequestCancelled) within the stated bounds; the
 * resident memory of the server and of its model host is read from /proc/PID/status every second.
 */
import { Random } from '../../test/reliability/random.js';
import { RawLspClient, sleep } from '../../test/reliability/rawLspClient.js';
import { MemorySampler, summarize, type MemoryReading, type MemoryReports, type PhaseReport, type RequestRecord } from './soakStats.js';
import { typingScript, type TypingAction, type TypingOptions } from './soakTyping.js';

export type { MemoryReport, MemoryReports, PhaseReport, Quantiles } from './soakStats.js';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Workspace folders. */
  roots: string[];
  /** Python files to type in (absolute paths, inside the roots). */
  files: string[];
  modelPath: string;
  /** Edits (didChange notifications) to replay. */
  edits: number;
  typing: TypingOptions;
  burstSeconds: number;
  /** Requests per second in the burst (default 100). */
  burstRate?: number;
  seed?: number;
  /** Edits before memory counts as warmed up (default 10% of `edits`). */
  warmupEdits?: number;
  /** Settings sent as initializationOptions (merged over the tiny-model defaults). */
  settings?: Record<string, unknown>;
  /** A request must be answered within this many ms of being sent (default 10 s). */
  answerBoundMs?: number;
  /** A cancelled request must be answered within this many ms of its cancellation (default 2 s). */
  cancelBoundMs?: number;
  log?: (line: string) => void;
  /** Extra node flags for the server process (e.g. --max-old-space-size=256). */
  nodeArgs?: string[];
}

/** Everything a soak run measured. */
export interface SoakReport {
  roots: string[];
  files: number;
  indexedFiles?: number;
  indexMs: number;
  edits: number;
  replay: PhaseReport;
  burst: PhaseReport & { drainMs: number };
  memory: MemoryReports;
  answerBoundMs: number;
  cancelBoundMs: number;
  exitCode: number | null;
  serverErrorLines: number;
  /** The first distinct error lines (up to 20). */
  serverErrors: string[];
  wallMs: number;
}

/** Runs the soak; rejects when the server exits (a crash) before the end. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const started = performance.now();
  const answerBoundMs = options.answerBoundMs ?? 10_000;
  const cancelBoundMs = options.cancelBoundMs ?? 2_000;
  const client = RawLspClient.server({ nodeArgs: options.nodeArgs, env: { REPOSHAPLEY_LOG: 'warn' } });
  let serverErrorLines = 0;
  const serverErrors = new Set<string>();
  client.onStderrLine((line) => {
    if (!line.startsWith('[error]')) return;
    serverErrorLines++;
    if (serverErrors.size < 20) serverErrors.add(line.slice(0, 300));
  });
  const sampler = new MemorySampler(() => readMemory(client));
  try {
    const settings = { modelPath: options.modelPath, threads: 1, ...options.settings };
    client.configuration = settings;
    await client.initialize(options.roots, settings);
    const initial = readMemory(client);
    const indexStarted = performance.now();
    await client.waitIndexed(300_000);
    const indexMs = performance.now() - indexStarted;
    const indexed = indexedFiles(client);
    sampler.start();
    const script = typingScript(options.files, new Random(options.seed ?? 1), options.typing);
    const replay = await replayTyping(client, script, options, sampler);
    sampler.edits = -1;
    const replayReport = summarize(replay.records, answerBoundMs, cancelBoundMs, replay.wallMs);
    const burstStart = readMemory(client);
    const burst = await runBurst(client, script, options);
    const burstReport = { ...summarize(burst.records, answerBoundMs, cancelBoundMs, burst.wallMs), drainMs: burst.drainMs };
    const burstEnd = readMemory(client);
    sampler.stop();
    await client.within('shutdown', client.request('shutdown').answer, 30_000);
    client.notify('exit');
    const exit = await client.within('exit', client.exited, 15_000);
    return {
      roots: options.roots, files: options.files.length, indexMs, edits: replay.edits,
      indexedFiles: indexed,
      replay: replayReport, burst: burstReport,
      memory: sampler.report(initial, replay.warmupEdits, replay.edits, burstStart, burstEnd),
      answerBoundMs, cancelBoundMs, exitCode: exit.code, serverErrorLines, serverErrors: [...serverErrors], wallMs: performance.now() - started,
    };
  } finally {
    sampler.stop();
    await client.dispose();
  }
}

/**
 * The server's RSS and its children's together: the model host (issue 22) holds the weights,
 * the contexts and their KV caches, so the model's memory is that process's.
 */
function readMemory(client: RawLspClient): MemoryReading {
  const hostKiB = client.childPids().reduce((sum, pid) => sum + (client.rssKiB(pid) ?? 0), 0);
  return { serverKiB: client.rssKiB() ?? 0, hostKiB };
}

function indexedFiles(client: RawLspClient): number | undefined {
  const statuses = (client.notifications.get('reposhapley/status') ?? []) as { message?: string }[];
  for (const status of statuses) {
    const match = /indexed (\d+) files/.exec(status.message ?? '');
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Sends one inline completion request at `cursor`, cancelling the previous one if still open. */
class RequestStream {
  readonly records: RequestRecord[] = [];
  private previous?: RequestRecord;

  constructor(private readonly client: RawLspClient) {}

  send(uri: string, cursor: { line: number; character: number }, triggerKind: 1 | 2): void {
    const previous = this.previous;
    if (previous && previous.answeredAt === undefined) {
      this.client.cancel(previous.id);
      previous.cancelledAt = performance.now();
    }
    const { id, answer } = this.client.request('textDocument/inlineCompletion', {
      textDocument: { uri }, position: cursor, context: { triggerKind },
    });
    const record: RequestRecord = { id, sentAt: performance.now() };
    void answer.then((a) => {
      record.answeredAt = performance.now();
      record.answer = a;
    });
    this.records.push(record);
    this.previous = record;
  }

  /** Waits until every request is answered or `timeoutMs` passes. */
  async drain(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.records.some((r) => r.answeredAt === undefined) && performance.now() < deadline && this.client.alive) await sleep(20);
  }
}

/** Sends an open/close/edit action; returns whether it was an edit. */
function sendAction(client: RawLspClient, action: TypingAction): boolean {
  if (action.kind === 'open') {
    client.notify('textDocument/didOpen', { textDocument: { uri: action.uri, languageId: 'python', version: 1, text: action.text } });
    return false;
  }
  if (action.kind === 'close') {
    client.notify('textDocument/didClose', { textDocument: { uri: action.uri } });
    return false;
  }
  client.notify('textDocument/didChange', {
    textDocument: { uri: action.uri, version: action.version }, contentChanges: [{ range: action.range, text: action.text }],
  });
  return true;
}

async function replayTyping(
  client: RawLspClient, script: Iterator<TypingAction>, options: SoakOptions, sampler: MemorySampler,
): Promise<{ records: RequestRecord[]; edits: number; warmupEdits: number; wallMs: number }> {
  const started = performance.now();
  const stream = new RequestStream(client);
  const warmupEdits = options.warmupEdits ?? Math.max(1, Math.round(options.edits / 10));
  let edits = 0;
  let due = performance.now();
  while (edits < options.edits) {
    const action = script.next().value as TypingAction;
    if (action.kind === 'edit') {
      // Keystrokes are due on a clock, so time spent sending does not slow the typist down.
      due += action.delayMs;
      await sleep(Math.max(0, due - performance.now()));
    }
    if (!client.alive) throw new Error(`the server exited during the replay after ${edits} edits:\n${client.stderr.slice(-3000)}`);
    if (!sendAction(client, action) || action.kind !== 'edit') continue;
    stream.send(action.uri, action.cursor, 2);
    edits++;
    sampler.edits = edits;
    if (edits % 500 === 0) {
      const memory = readMemory(client);
      options.log?.(`${edits} edits, rss ${memory.serverKiB} KiB, model host ${memory.hostKiB} KiB`);
    }
  }
  await stream.drain(options.answerBoundMs ?? 10_000);
  return { records: stream.records, edits, warmupEdits, wallMs: performance.now() - started };
}

/**
 * `burstSeconds` of keystrokes at `burstRate` per second, each with a completion request that
 * cancels the previous one; every tenth is invoked (no debounce, so the model starts and is then
 * aborted). Then one invoked request on a quiet server: `drainMs` is its latency.
 */
async function runBurst(
  client: RawLspClient, script: Iterator<TypingAction>, options: SoakOptions,
): Promise<{ records: RequestRecord[]; drainMs: number; wallMs: number }> {
  const started = performance.now();
  const stream = new RequestStream(client);
  const interval = 1000 / (options.burstRate ?? 100);
  const total = Math.round(options.burstSeconds * (options.burstRate ?? 100));
  let last: Extract<TypingAction, { kind: 'edit' }> | undefined;
  for (let i = 0; i < total;) {
    const action = script.next().value as TypingAction;
    sendAction(client, action);
    if (action.kind !== 'edit') continue;
    await sleep(Math.max(0, started + i * interval - performance.now()));
    if (!client.alive) throw new Error(`the server exited during the burst:\n${client.stderr.slice(-3000)}`);
    stream.send(action.uri, action.cursor, i % 10 === 9 ? 1 : 2);
    last = action;
    i++;
  }
  const wallMs = performance.now() - started;
  await stream.drain(options.answerBoundMs ?? 10_000);
  let drainMs = Number.NaN;
  // One more keystroke, so the probe's answer cannot come from the completion cache.
  for (let action = script.next().value as TypingAction; ; action = script.next().value as TypingAction) {
    sendAction(client, action);
    if (action.kind === 'edit') {
      last = action;
      break;
    }
  }
  if (last) {
    const probe = new RequestStream(client);
    probe.send(last.uri, last.cursor, 1);
    await probe.drain(options.answerBoundMs ?? 10_000);
    const record = probe.records[0]!;
    drainMs = record.answeredAt === undefined ? Number.POSITIVE_INFINITY : record.answeredAt - record.sentAt;
  }
  return { records: stream.records, drainMs, wallMs };
}
