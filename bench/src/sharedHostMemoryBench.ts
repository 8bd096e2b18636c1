/**
 * Memory of N editor windows on one machine (issue 49 must-reach: the servers and their shared
 * model host together at most one window's + 150 MB per extra window). Windows open one after
 * another, as a user opens them, each a built server on the same workspace that completes at the
 * given place (so the model is loaded and each has its own session) and then, with
 * `--completions K`, at K − 1 other places (full prompts, as typing reads); after each window
 * opens, the resident memory of every server and of every model host is read from /proc: RSS
 * each, and the proportional set size of them all (`pssKiB`). One host serves them all, so the
 * figures per extra window are differences within one host process (its RSS after loading varies
 * by ±30 MB from one start to the next). With `--no-shared-model-host` each server has a host of
 * its own.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/sharedHostMemoryBench.js FILE:LINE:COL [--workspace DIR] [--windows 3] [--completions 1] [--no-shared-model-host]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { findWorkspaceRoot, parseLocation } from '../../server/src/cli/location.js';
import { listHosts } from '../../server/src/model/childProcess/hostConnection.js';
import { RawLspClient } from '../../test/reliability/rawLspClient.js';
import { positiveInt } from './cliNumbers.js';
import { markdownTable } from './report/format.js';
import { REPO_ROOT } from './repoPaths.js';

interface Options {
  workspace?: string;
  windows: number;
  /** Completions per window: the first at the location, the others at other lines' ends (full prompts). */
  completions: number;
  sharedModelHost: boolean;
  threads: number;
}

interface Sample {
  windows: number;
  serversKiB: number[];
  hostsKiB: number[];
  /** Proportional set size of the servers and hosts together: a page shared by k of them counts 1/k in each. */
  totalPssKiB: number;
}

/**
 * The process's proportional set size in KiB (`Pss:` of /proc/PID/smaps_rollup), 0 once it exited.
 * RSS counts the pages every server and host share (node's own binary and libraries, ~45 MB) once
 * per process; PSS counts them once in all, so the sum is the memory the windows take together.
 */
function pssKiB(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

async function openWindow(target: { root: string; file: string; line: number; character: number }, options: Options, hosts: string): Promise<RawLspClient> {
  const settings = { threads: options.threads, maxTokens: 8, sharedModelHost: options.sharedModelHost, modelHostIdleSeconds: 0 };
  const uri = pathToFileURL(target.file).href;
  const text = readFileSync(target.file, 'utf8');
  const client = RawLspClient.server({ env: { REPOSHAPLEY_LOG: 'warn', REPOSHAPLEY_MODEL_HOST_DIR: hosts } });
  await client.initialize(target.root, settings);
  await client.waitIndexed();
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
  for (const position of positionsOf(text, target, options.completions)) {
    const { answer } = client.request('textDocument/inlineCompletion', { textDocument: { uri }, position, context: { triggerKind: 1 } });
    await client.within('completion', answer, 120_000);
  }
  return client;
}

/**
 * The location, then the ends of lines spread over the file: a window's first completion reads a
 * short prompt (the quick first answer), later ones at new places read full ones, as typing does,
 * so the model's buffers are as full as in use.
 */
function positionsOf(text: string, target: { line: number; character: number }, count: number): Array<{ line: number; character: number }> {
  const lines = text.split('\n');
  const positions = [{ line: target.line, character: target.character }];
  for (let i = 1; positions.length < count && i < lines.length; i++) {
    const line = (target.line + i * LINE_STRIDE) % lines.length;
    if (lines[line]!.trim() !== '') positions.push({ line, character: lines[line]!.trimEnd().length });
  }
  return positions;
}

/** Lines between a window's later completions: far enough that each reads a prompt of its own. */
const LINE_STRIDE = 97;

async function sample(clients: RawLspClient[], options: Options, hosts: string): Promise<Sample> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const serversKiB = clients.map((client) => client.rssKiB() ?? 0);
  const hostPids = options.sharedModelHost ? (await listHosts(hosts)).map((host) => host.pid) : clients.flatMap((client) => client.childPids());
  const totalPssKiB = [...clients.map((client) => client.pid), ...hostPids].reduce((sum, pid) => sum + pssKiB(pid), 0);
  return { windows: clients.length, serversKiB, hostsKiB: hostPids.map((pid) => clients[0]!.rssKiB(pid) ?? 0), totalPssKiB };
}

/** Opens the windows one after another, sampling after each. */
async function sampleWindows(target: Parameters<typeof openWindow>[0], options: Options): Promise<Sample[]> {
  const hosts = mkdtempSync(path.join(os.tmpdir(), 'memory-bench-hosts-'));
  const clients: RawLspClient[] = [];
  const samples: Sample[] = [];
  try {
    while (clients.length < options.windows) {
      clients.push(await openWindow(target, options, hosts));
      samples.push(await sample(clients, options, hosts));
    }
    return samples;
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    rmSync(hosts, { recursive: true, force: true });
  }
}

function report(samples: Sample[]): string {
  const mb = (kib: number) => (kib / 1024).toFixed(0);
  const total = (s: Sample) => [...s.serversKiB, ...s.hostsKiB].reduce((a, b) => a + b, 0);
  const [one, onePss] = [total(samples[0]!), samples[0]!.totalPssKiB];
  const perExtra = (s: Sample, value: number, first: number) => (s.windows === 1 ? '–' : mb((value - first) / (s.windows - 1)));
  return markdownTable(
    ['windows', 'servers (MB each)', 'model hosts (MB each)', 'total RSS (MB)', 'RSS over one window (MB per extra window)', 'total PSS (MB)', 'PSS over one window (MB per extra window)'],
    samples.map((s) => [
      String(s.windows), s.serversKiB.map(mb).join(', '), s.hostsKiB.map(mb).join(', '), mb(total(s)), perExtra(s, total(s), one),
      mb(s.totalPssKiB), perExtra(s, s.totalPssKiB, onePss),
    ]),
  );
}

async function main(): Promise<void> {
  const program = new Command('sharedHostMemoryBench')
    .argument('<location>', 'FILE:LINE:COL, 1-based: where each window completes')
    .option('--workspace <dir>', 'workspace root (default: the file\'s project root)')
    .option('--windows <n>', 'up to this many windows', positiveInt, 3)
    .option('--threads <n>', 'llama.cpp threads', positiveInt, 2)
    .option('--completions <n>', 'completions per window (the first reads the quick short prompt)', positiveInt, 1)
    .option('--no-shared-model-host', 'a model host per server (the sharedModelHost setting off)')
    .parse();
  const options = program.opts<Options>();
  const location = parseLocation(program.args[0]!, REPO_ROOT);
  if (!location) throw new Error(`expected FILE:LINE:COL (1-based), got "${program.args[0]}"`);
  const root = options.workspace ? path.resolve(options.workspace) : findWorkspaceRoot(location.file);
  const target = { root, file: location.file, line: location.line, character: location.character };
  const samples = await sampleWindows(target, options);
  const completions = options.completions === 1 ? 'one completion' : `${options.completions} completions`;
  console.log(`${options.sharedModelHost ? 'one shared model host' : 'a model host per server'}, ${os.cpus().length} cores, after ${completions} per window\n`);
  console.log(report(samples));
}

await main();
