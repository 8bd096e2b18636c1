/**
 * The shared-inference-server adapter (server/src/model/remote/, issue 21), measured against a real
 * llama-server on 127.0.0.1 (test/llamaServer/buildLlamaServer.sh builds it):
 *
 *   overhead  what a completion's model work costs the client beyond the server's own compute:
 *             per iteration one changed line tokenized, one NEED/DONE decision and a 16-token
 *             greedy generation on a real file's prompt; client work = wall time − the compute the
 *             server reports (`timings.prompt_ms + predicted_ms`). Target: ≤ 15 ms p50.
 *   parity    the next-token distribution locally and through the server at the start of every line
 *             of a real file (the prefix up to there): how often the greedy token differs, how far
 *             apart ln p of the top token is, and how close the top two were where they differ.
 *   soak      1,000 completions through the engine (as the LSP server runs them) while the server
 *             is killed (SIGKILL) and started again twice; a request with no answer after three
 *             times the request timeout counts as hung. Target: 0 hung.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/modelServerBench.js overhead [--model FILE|NAME] [--iterations 60] [--threads 2]
 *   node dist/bench/src/modelServerBench.js parity --model FILE|NAME [--file PATH] [--positions 60]
 *   node dist/bench/src/modelServerBench.js soak [--requests 1000] [--timeout-ms 5000]
 *
 * Without --model both use a tiny generated model (the client's work does not depend on its size).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { createCompletionEngine } from '../../server/src/completion/createEngine.js';
import type { CompletionOutcome } from '../../server/src/completion/engine.js';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { loadLlamaModel } from '../../server/src/model/llama/loadLlamaModel.js';
import { loadRemoteModel, type RemoteCompletionModel } from '../../server/src/model/remote/remoteModel.js';
import type { RemoteSession } from '../../server/src/model/remote/remoteSession.js';
import { silentLogger } from '../../server/src/util/logger.js';
import { llamaServerBinary, LlamaServerProcess } from '../../test/support/llamaServer.js';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { REPO_ROOT } from './repoPaths.js';
import { quantile } from './stats.js';

/** How long the server stays down after each kill, and the pause between requests. */
const RESTART_AFTER_MS = 1_500;
const KEYSTROKE_GAP_MS = 10;

const FIXTURE_ROOT = path.join(REPO_ROOT, 'test/fixtures/retrieval-ws');
const FIXTURE_FILE = path.join(FIXTURE_ROOT, 'app/checkout.py');

async function withServer<T>(
  options: { model?: string; threads: number }, run: (server: LlamaServerProcess, model: string) => Promise<T>,
): Promise<T> {
  const binary = llamaServerBinary();
  if (!binary) throw new Error('llama-server is not built: run test/llamaServer/buildLlamaServer.sh');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'model-server-bench-'));
  try {
    const model = options.model ? modelFileFromArgument(options.model)
      : (await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), contextLength: 4096, highBytesControl: true })).path;
    const server = await LlamaServerProcess.start(binary, { model, slots: 1, contextPerSlot: 4096, threads: options.threads });
    try {
      return await run(server, model);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function overhead(options: { model?: string; iterations: number; threads: number }): Promise<void> {
  await withServer(options, async (server) => {
    const loaded = await loadRemoteModel({ url: server.url, timeoutMs: 120_000 }, silentLogger);
    if (loaded.kind !== 'ok') throw new Error(loaded.message);
    const model = loaded.model as RemoteCompletionModel;
    const session = (await model.createSession()) as RemoteSession;
    const lines = (await readFile(FIXTURE_FILE, 'utf8')).split(/(?<=\n)/);
    const s = model.info.special;
    const base = (await model.tokenizeMany(lines)).flat();
    const walls: number[] = [];
    const clients: number[] = [];
    for (let i = 0; i < options.iterations; i++) {
      const started = performance.now();
      const computeBefore = session.serverComputeMs;
      // A keystroke: the cursor line gains a character, so one line is new to the tokenizer.
      const [typed] = await model.tokenizeMany([`    total = cart.total() + ${i}\n`]);
      const prompt = [s.fimPrefix!, ...base, ...typed!, s.fimSuffix!, s.fimMiddle!];
      if (s.need !== undefined && s.done !== undefined) await session.decide(prompt.slice(0, -1), s.need, s.done);
      await session.generate(prompt, { maxTokens: 16, singleLine: false });
      const wall = performance.now() - started;
      walls.push(wall);
      clients.push(wall - (session.serverComputeMs - computeBefore));
    }
    await model.dispose();
    const ms = (values: number[], q: number) => quantile(values, q).toFixed(1);
    console.log(`model ${path.basename(options.model ?? 'tiny.gguf')}, ${options.iterations} iterations, server threads ${options.threads}`);
    console.log(`wall per completion: p50 ${ms(walls, 0.5)} ms, p95 ${ms(walls, 0.95)} ms`);
    console.log(`client-side work (wall - server compute): p50 ${ms(clients, 0.5)} ms, p95 ${ms(clients, 0.95)} ms`);
  });
}

async function parity(options: { model?: string; file: string; positions: number; threads: number }): Promise<void> {
  await withServer(options, async (server, modelFile) => {
    const remoteLoad = await loadRemoteModel({ url: server.url, timeoutMs: 120_000 }, silentLogger);
    const localLoad = await loadLlamaModel({ path: modelFile, threads: options.threads, gpuLayers: 0, contextSize: 4096 }, silentLogger);
    if (remoteLoad.kind !== 'ok') throw new Error(remoteLoad.message);
    if (localLoad.kind !== 'ok') throw new Error(localLoad.message);
    const [remote, local] = [remoteLoad.model, localLoad.model];
    const [remoteSession, localSession] = [await remote.createSession(), await local.createSession()];
    const lines = (await readFile(options.file, 'utf8')).split(/(?<=\n)/).slice(0, options.positions + 1);
    const ids = lines.map((line) => local.tokenize(line));
    const topGaps: number[] = [];
    const flips: { line: number; gap: number }[] = [];
    let prefix: number[] = [];
    for (let line = 0; line < lines.length - 1; line++) {
      prefix = [...prefix, ...ids[line]!];
      if (prefix.length > 3500) break;
      // Greedy tokens of both (one token each), then ln p of both tokens on both sides.
      const step = { maxTokens: 1, singleLine: false, loopPenalty: 0, repetitionStop: false };
      const [a, b] = [await remoteSession.generate(prefix, step), await localSession.generate(prefix, step)];
      const [ra, rb] = [a.tokens[0], b.tokens[0]];
      if (ra === undefined || rb === undefined) continue;
      const other = ra === rb ? (rb === 0 ? 1 : 0) : ra;
      const [remoteSplit, localSplit] = [await remoteSession.decide(prefix, rb, other), await localSession.decide(prefix, rb, other)];
      topGaps.push(Math.abs((remoteSplit.logitFirst - remoteSplit.logitSecond) - (localSplit.logitFirst - localSplit.logitSecond)));
      if (ra !== rb) flips.push({ line, gap: Math.abs(localSplit.logitFirst - localSplit.logitSecond) });
    }
    await remote.dispose();
    await local.dispose();
    const fmt = (v: number) => v.toFixed(3);
    console.log(`model ${path.basename(modelFile)}, file ${path.relative(REPO_ROOT, options.file)}, ${topGaps.length} positions`);
    console.log(`greedy token differs at ${flips.length} of ${topGaps.length} positions` +
      (flips.length ? `; local gap between the two tokens there: ${flips.map((f) => fmt(f.gap)).join(', ')} nats` : ''));
    console.log(`|Δ (ln p(local top) − ln p(other))| remote vs local: median ${fmt(quantile(topGaps, 0.5))}, p95 ${fmt(quantile(topGaps, 0.95))}, max ${fmt(Math.max(...topGaps))} nats`);
  });
}

async function soak(options: { requests: number; timeoutMs: number; threads: number }): Promise<void> {
  await withServer({ threads: options.threads }, async (server) => {
    const engine = createCompletionEngine({
      logger: silentLogger, settings: { modelServer: server.url, modelServerTimeoutMs: options.timeoutMs, threads: 1, maxTokens: 16, policy: 'reposhapley' },
    });
    await engine.indexWorkspace([FIXTURE_ROOT], () => {});
    const uri = pathToFileURL(FIXTURE_FILE).href;
    const text = await readFile(FIXTURE_FILE, 'utf8');
    engine.openDocument(uri, text, 1);
    const lines = text.split('\n');
    const kills = new Set([Math.floor(options.requests / 3), Math.floor((2 * options.requests) / 3)]);
    const counts = new Map<string, number>();
    let hung = 0;
    let longest = 0;
    let serverUp = true;
    let restarting: Promise<void> | undefined;
    const started = performance.now();
    for (let i = 0; i < options.requests; i++) {
      if (kills.has(i)) {
        await restarting;
        await server.kill();
        serverUp = false;
        // Back after a while, as an operator restarting it would be; requests go on meanwhile.
        restarting = new Promise((resolve) => setTimeout(resolve, RESTART_AFTER_MS))
          .then(() => server.restart()).then(() => void (serverUp = true));
      }
      const line = i % lines.length;
      const controller = new AbortController();
      // Every fifth request is cancelled early, as a keystroke cancels the one before it.
      if (i % 5 === 4) setTimeout(() => controller.abort(), 5);
      const phase = serverUp ? 'up' : 'down';
      const requestStart = performance.now();
      const outcome = await withWatchdog(
        engine.complete({ uri, line, character: lines[line]!.length, trigger: 'automatic' }, controller.signal), 3 * options.timeoutMs,
      );
      longest = Math.max(longest, performance.now() - requestStart);
      if (outcome === 'hung') hung++;
      const kind = `${phase}/${outcome === 'hung' ? 'hung' : outcome.kind}`;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      // Keystrokes come some milliseconds apart.
      await new Promise((resolve) => setTimeout(resolve, KEYSTROKE_GAP_MS));
    }
    await restarting;
    await engine.dispose();
    console.log(`${options.requests} requests in ${((performance.now() - started) / 1000).toFixed(1)} s, server killed and restarted twice`);
    console.log(`outcomes (server up or down when the request began / outcome): ${[...counts].sort().map(([k, n]) => `${k} ${n}`).join(', ')}`);
    console.log(`hung ${hung}; longest request ${longest.toFixed(0)} ms`);
  });
}

async function withWatchdog(work: Promise<CompletionOutcome>, ms: number): Promise<CompletionOutcome | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  try {
    return await Promise.race([work, watchdog]);
  } finally {
    clearTimeout(timer);
  }
}

const program = new Command('modelServerBench');
program.command('overhead')
  .option('--model <file>', 'GGUF file or catalog name (default: a tiny generated model)')
  .option('--iterations <n>', 'completions', (v) => Number(v), 60)
  .option('--threads <n>', 'llama-server threads', (v) => Number(v), 2)
  .action((opts: { model?: string; iterations: number; threads: number }) => overhead(opts));
program.command('parity')
  .option('--model <file>', 'GGUF file or catalog name (default: a tiny generated model)')
  .option('--file <path>', 'source file whose lines are the positions', FIXTURE_FILE)
  .option('--positions <n>', 'line starts to compare', (v) => Number(v), 60)
  .option('--threads <n>', 'threads, local and server', (v) => Number(v), 2)
  .action((opts: { model?: string; file: string; positions: number; threads: number }) => parity(opts));
program.command('soak')
  .option('--requests <n>', 'completions', (v) => Number(v), 1000)
  .option('--timeout-ms <n>', 'modelServerTimeoutMs', (v) => Number(v), 5000)
  .option('--threads <n>', 'llama-server threads', (v) => Number(v), 1)
  .action((opts: { requests: number; timeoutMs: number; threads: number }) => soak(opts));
await program.parseAsync(process.argv);
