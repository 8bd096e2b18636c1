/**
 * The fuzz run: starts the built server on a temporary workspace with the tiny model, writes
 * batches of random cases (malformed frames, random LSP parameters, random edits, random bytes
 * and pathological source as buffers and files of every language) and checks after every few batches that a valid probe request is
 * still answered. At the end every well-formed request must have been answered, the index must
 * still find a newly written module, and shutdown/exit must end the server with 0.
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SETTINGS } from '../../../shared/settings.js';
import { createTempWorkspace, PROBE_POSITION, PROBE_PY, tinyModelSettings, type TempWorkspace } from '../fixtureWorkspace.js';
import { Random } from '../random.js';
import { RawLspClient, sleep, type Answer, type RequestId } from '../rawLspClient.js';
import type { CaseGenerator, FuzzCase, FuzzContext } from './fuzzCase.js';
import { openRandomBuffer, randomDiskFile, randomEdits, textFor } from './documents.js';
import { frameCase } from './frames.js';
import { lspParamsCase } from './lspParams.js';

/** Options of {@link runFuzz}. */
export interface FuzzOptions {
  seed: number;
  cases: number;
  /** Cases written per stdin write (default 100). */
  batchSize?: number;
  /** A liveness probe after this many batches (default 1: after every batch). */
  probeEvery?: number;
  /** How long a probe or an outstanding request may take (default 30 s: a bound, not a timing). */
  answerTimeoutMs?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** A file to copy the server's stderr to (REPOSHAPLEY_LOG sets its level; default warn). */
  serverLog?: string;
}

/** What a run saw. */
export interface FuzzReport {
  seed: number;
  cases: number;
  byKind: Record<string, number>;
  bytesWritten: number;
  /** Well-formed requests inside the cases, and how many were answered. */
  requestsExpected: number;
  requestsAnswered: number;
  unanswered: string[];
  probes: number;
  probeLatenciesMs: number[];
  /** Error-level log lines of the server (handler exceptions caught by the guards), by message. */
  serverErrors: Record<string, number>;
  /** Frames the reader reported as malformed and skipped. */
  skippedFrames: number;
  /** Whether a module written at the end was found by retrieval. */
  healthy: boolean;
  /** What the health check saw when it failed. */
  healthDetail?: string;
  rssStartKiB?: number;
  rssEndKiB?: number;
  exitCode: number | null;
  wallMs: number;
}

/** Families and their weights in a batch. */
const FAMILIES: readonly (readonly [number, CaseGenerator])[] = [
  [35, frameCase],
  [35, lspParamsCase],
  [15, randomEdits],
  [8, openRandomBuffer],
  [7, randomDiskFile],
];

/** Runs the fuzz; rejects (with the seed and the server's stderr) when the server stops answering. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const workspace = await createTempWorkspace('reposhapley-fuzz-');
  const client = RawLspClient.server({ env: { REPOSHAPLEY_LOG: process.env.REPOSHAPLEY_LOG ?? 'warn' } });
  const report = emptyReport(options);
  watchStderr(client, report);
  const serverLog = options.serverLog ? createWriteStream(options.serverLog) : undefined;
  if (serverLog) client.onStderrLine((line) => serverLog.write(`${line}\n`));
  try {
    await startSession(client, workspace);
    report.rssStartKiB = client.rssKiB();
    await runBatches(client, workspace, options, report);
    const health = await healthCheck(client, workspace, options.answerTimeoutMs ?? 30_000);
    report.healthy = health.healthy;
    if (!health.healthy) report.healthDetail = health.detail;
    report.rssEndKiB = client.rssKiB();
    await client.within('shutdown', client.request('shutdown').answer, 30_000);
    client.notify('exit');
    report.exitCode = (await client.within('exit', client.exited, 15_000)).code;
    report.wallMs = performance.now() - started;
    return report;
  } catch (error) {
    throw new Error(`fuzz seed ${options.seed} failed after ${report.cases} cases: ${(error as Error).message}`, { cause: error });
  } finally {
    await client.dispose();
    serverLog?.end();
    workspace.dispose();
  }
}

function emptyReport(options: FuzzOptions): FuzzReport {
  return {
    seed: options.seed, cases: 0, byKind: {}, bytesWritten: 0, requestsExpected: 0, requestsAnswered: 0, unanswered: [],
    probes: 0, probeLatenciesMs: [], serverErrors: {}, skippedFrames: 0, healthy: false, exitCode: null, wallMs: 0,
  };
}

/** Counts skipped frames and error lines (keyed by message and the first stack frame). */
function watchStderr(client: RawLspClient, report: FuzzReport): void {
  let pendingError: string | undefined;
  const count = (key: string): void => {
    report.serverErrors[key] = (report.serverErrors[key] ?? 0) + 1;
  };
  client.onStderrLine((line) => {
    if (pendingError !== undefined) {
      const frame = /^\s+at /.test(line) ? ` @ ${line.trim().replace(/^at /, '').replace(/\(?file:\/\/\S*\/(dist\/\S+?)\)?$/, '$1')}` : '';
      count(pendingError + frame);
      pendingError = undefined;
    }
    if (line.includes('protocol: ')) report.skippedFrames++;
    if (line.startsWith('[error]')) {
      pendingError = line.replace(/^\[error\] \[[^\]]*\] /, '').replace(/file:\/\/\S+|\/tmp\/\S+/g, '<path>').slice(0, 160);
    }
  });
}

async function startSession(client: RawLspClient, workspace: TempWorkspace): Promise<void> {
  const settings = tinyModelSettings(workspace.modelPath, { maxTokens: 4 });
  client.configuration = settings;
  await client.initialize(workspace.root, settings);
  await client.waitIndexed();
  client.notify('textDocument/didOpen', { textDocument: { uri: workspace.probeUri, languageId: 'python', version: 1, text: PROBE_PY } });
}

function contextFor(workspace: TempWorkspace, random: Random): FuzzContext {
  let nextId = 1_000_000_000;
  const documentUris = [
    ...['py', 'py', 'py', 'js', 'jsx', 'ts', 'tsx', 'go', 'rs', 'rs'].map((ext, i) => workspace.uri(`pool/doc${i}.${ext}`)),
    workspace.uri('pool/notes.txt'), workspace.uri('node_modules/vendored.py'), workspace.uri('target/debug/build.rs'),
    workspace.uri('lib/helpers.py'), 'untitled:Untitled-7',
  ];
  for (const [i, ext] of ['py', 'py', 'js', 'ts', 'go', 'rs'].entries()) {
    const file = `disk/seed${i}.${ext}`;
    workspace.write(file, i % 2 === 0 ? random.bytes(random.int(3000)) : textFor(random, file));
  }
  return {
    random, workspace: workspace.root, documentUris, documentLines: new Map(), modelPath: workspace.modelPath,
    nextId: () => (random.chance(0.5) ? nextId++ : `fz-${nextId++}`),
  };
}

async function runBatches(client: RawLspClient, workspace: TempWorkspace, options: FuzzOptions, report: FuzzReport): Promise<void> {
  const random = new Random(options.seed);
  const context = contextFor(workspace, random);
  const batchSize = options.batchSize ?? 100;
  const probeEvery = options.probeEvery ?? 1;
  const timeoutMs = options.answerTimeoutMs ?? 30_000;
  const expected = new Map<RequestId, { kind: string; answer: Promise<Answer> }>();
  const recent: FuzzCase[][] = [];
  for (let batch = 0; report.cases < options.cases; batch++) {
    const cases: FuzzCase[] = [];
    while (cases.length < batchSize && report.cases + cases.length < options.cases) cases.push(random.weighted(FAMILIES)(context));
    for (const c of cases) {
      report.byKind[c.kind] = (report.byKind[c.kind] ?? 0) + 1;
      for (const id of c.requestIds) expected.set(id, { kind: c.kind, answer: client.expect(id) });
    }
    const bytes = Buffer.concat(cases.map((c) => c.bytes));
    report.bytesWritten += bytes.length;
    report.cases += cases.length;
    recent.push(cases);
    if (recent.length > probeEvery) recent.shift();
    await client.write(bytes);
    if ((batch + 1) % probeEvery === 0) await probe(client, workspace, report, timeoutMs).catch((error: unknown) => failWithDump(error, workspace, recent));
    if ((batch + 1) % 20 === 0) options.log?.(`${report.cases} cases, ${expected.size} requests, rss ${client.rssKiB()} KiB`);
  }
  await probe(client, workspace, report, timeoutMs);
  await settleExpected(client, expected, report, timeoutMs);
}

/**
 * Writes the cases since the last good probe to a file and rethrows: a first line with the
 * workspace directory (fuzzReplay recreates it there, since the bytes name its paths), then one
 * JSON line per case.
 */
function failWithDump(error: unknown, workspace: TempWorkspace, recent: FuzzCase[][]): never {
  const file = path.join(os.tmpdir(), `reposhapley-fuzz-failure-${process.pid}.jsonl`);
  const lines = recent.flat().map((c) => JSON.stringify({ kind: c.kind, disk: c.disk, base64: c.bytes.toString('base64') }));
  writeFileSync(file, [JSON.stringify({ workspaceDir: workspace.dir }), ...lines].join('\n'));
  throw new Error(`${(error as Error).message}\n(the cases since the last good probe are in ${file})`, { cause: error });
}

/** A valid completion and a trace request; both must be answered without an error. */
async function probe(client: RawLspClient, workspace: TempWorkspace, report: FuzzReport, timeoutMs: number): Promise<void> {
  const started = performance.now();
  const completion = client.request('textDocument/inlineCompletion', {
    textDocument: { uri: workspace.probeUri }, position: PROBE_POSITION, context: { triggerKind: 1 },
  });
  const trace = client.request('reposhapley/completionTrace', {});
  const [inline, traced] = await client.within(`probe ${report.probes + 1} after ${report.cases} cases`, Promise.all([completion.answer, trace.answer]), timeoutMs);
  if (inline.error || !Array.isArray((inline.result as { items?: unknown } | null)?.items)) {
    throw new Error(`probe completion answered ${JSON.stringify(inline).slice(0, 300)}`);
  }
  if (traced.error) throw new Error(`probe trace answered ${JSON.stringify(traced).slice(0, 300)}`);
  report.probes++;
  report.probeLatenciesMs.push(performance.now() - started);
}

async function settleExpected(
  client: RawLspClient, expected: Map<RequestId, { kind: string; answer: Promise<Answer> }>, report: FuzzReport, timeoutMs: number,
): Promise<void> {
  report.requestsExpected = expected.size;
  const all = Promise.all([...expected.values()].map((e) => e.answer));
  await client.within('every fuzzed request to be answered', all, timeoutMs).catch(() => undefined);
  for (const [id, { kind }] of expected) {
    if (client.answers.has(id)) report.requestsAnswered++;
    else report.unanswered.push(`${String(id)} (${kind})`);
  }
}

/**
 * Known-good settings and the workspace folder again (the fuzz may have removed it, as a client
 * may), a new module on disk announced by the watcher, and a completion that must retrieve it:
 * the index and retrieval survived the run, not only the process. Re-indexing and the watcher
 * event are handled asynchronously, so the completion is retried for up to 10 s.
 */
async function healthCheck(client: RawLspClient, workspace: TempWorkspace, timeoutMs: number): Promise<{ healthy: boolean; detail: string }> {
  const settings = { ...DEFAULT_SETTINGS, ...tinyModelSettings(workspace.modelPath, { maxTokens: 4, policy: 'full' }) };
  client.configuration = settings;
  client.notify('workspace/didChangeConfiguration', { settings: { reposhapley: settings } });
  client.notify('workspace/didChangeWorkspaceFolders', { event: { added: [{ uri: workspace.uri(''), name: 'ws' }], removed: [] } });
  const file = workspace.write('lib/fresh_module.py', 'def fuzz_health_marker(alpha, beta):\n    return alpha * beta + 1\n');
  client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(file).href, type: 1 }] });
  const uri = workspace.uri('health_check.py');
  const line = 'result = fuzz_health_marker(';
  let detail = '';
  for (let attempt = 0; attempt < 20; attempt++) {
    // A new version each time, so no answer comes from the completion cache.
    const text = `from lib.fresh_module import fuzz_health_marker\n# attempt ${attempt}\n${line}`;
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: attempt, text } });
    const completion = client.request('textDocument/inlineCompletion', {
      textDocument: { uri }, position: { line: 2, character: line.length }, context: { triggerKind: 1 },
    });
    await client.within('health-check completion', completion.answer, timeoutMs);
    const trace = await client.within('health-check trace', client.request('reposhapley/completionTrace', {}).answer, timeoutMs);
    const candidates = (trace.result as { candidates?: { relPath: string }[] } | null)?.candidates ?? [];
    if (candidates.some((c) => c.relPath === 'lib/fresh_module.py')) return { healthy: true, detail: '' };
    detail = JSON.stringify(trace.result).slice(0, 3000);
    await sleep(500);
  }
  return { healthy: false, detail };
}
