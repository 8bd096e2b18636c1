/**
 * Memory of N editor windows on one machine (issue 49 must-reach: the servers and their shared
 * model host together at most one window's + 150 MB per extra window). For N = 1, 2, 3: N built
 * servers on the same workspace, each completing once at the same file (so the model is loaded
 * and each has its own session), then the resident memory of every server and of every model host
 * is read from /proc: RSS each, and the proportional set size of them all (`pssKiB`). With
 * `--no-shared-model-host` each server has a host of its own.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/sharedHostMemoryBench.js FILE:LINE:COL [--workspace DIR] [--windows 3] [--no-shared-model-host]
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

async function openWindows(count: number, target: { root: string; file: string; line: number; character: number }, options: Options, hosts: string): Promise<RawLspClient[]> {
  const settings = { threads: options.threads, maxTokens: 8, sharedModelHost: options.sharedModelHost, modelHostIdleSeconds: 0 };
  const uri = pathToFileURL(target.file).href;
  const text = readFileSync(target.file, 'utf8');
  const clients: RawLspClient[] = [];
  for (let i = 0; i < count; i++) {
    const client = RawLspClient.server({ env: { REPOSHAPLEY_LOG: 'warn', REPOSHAPLEY_MODEL_HOST_DIR: hosts } });
    clients.push(client);
    await client.initialize(target.root, settings);
    await client.waitIndexed();
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
    const { answer } = client.request('textDocument/inlineCompletion', { textDocument: { uri }, position: { line: target.line, character: target.character }, context: { triggerKind: 1 } });
    await client.within('completion', answer, 120_000);
  }
  return clients;
}

async function sample(count: number, target: Parameters<typeof openWindows>[1], options: Options): Promise<Sample> {
  const hosts = mkdtempSync(path.join(os.tmpdir(), 'memory-bench-hosts-'));
  const clients = await openWindows(count, target, options, hosts);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const serversKiB = clients.map((client) => client.rssKiB() ?? 0);
    const hostPids = options.sharedModelHost ? (await listHosts(hosts)).map((host) => host.pid) : clients.flatMap((client) => client.childPids());
    const totalPssKiB = [...clients.map((client) => client.pid), ...hostPids].reduce((sum, pid) => sum + pssKiB(pid), 0);
    return { windows: count, serversKiB, hostsKiB: hostPids.map((pid) => clients[0]!.rssKiB(pid) ?? 0), totalPssKiB };
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
    .option('--no-shared-model-host', 'a model host per server (the sharedModelHost setting off)')
    .parse();
  const options = program.opts<Options>();
  const location = parseLocation(program.args[0]!, REPO_ROOT);
  if (!location) throw new Error(`expected FILE:LINE:COL (1-based), got "${program.args[0]}"`);
  const root = options.workspace ? path.resolve(options.workspace) : findWorkspaceRoot(location.file);
  const target = { root, file: location.file, line: location.line, character: location.character };
  const samples: Sample[] = [];
  for (let n = 1; n <= options.windows; n++) samples.push(await sample(n, target, options));
  console.log(`${options.sharedModelHost ? 'one shared model host' : 'a model host per server'}, ${os.cpus().length} cores, after one completion per window\n`);
  console.log(report(samples));
}

await main();
