/**
 * A real llama.cpp `llama-server` for tests and benches: the binary test/llamaServer/buildLlamaServer.sh
 * built from node-llama-cpp's bundled source, started on 127.0.0.1 with a given GGUF, stopped,
 * killed and started again on the same port.
 *
 * The binary: `REPOSHAPLEY_LLAMA_SERVER`, else the build script's cache. `.ci/run` builds it
 * first; elsewhere, tests that need it are skipped with the command that builds it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { packageRoot } from '../../server/src/util/packageRoot.js';

/** The script lives in the source tree, which this module finds from src and from dist alike. */
export const BUILD_SCRIPT = path.join(packageRoot(), 'test/llamaServer/buildLlamaServer.sh');

/** The built binary, or undefined when it has not been built (the script is never run to build here). */
export function llamaServerBinary(): string | undefined {
  const fromEnv = process.env.REPOSHAPLEY_LLAMA_SERVER;
  if (fromEnv) return fromEnv;
  const found = spawnSync('bash', [BUILD_SCRIPT, '--cached'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

export interface LlamaServerOptions {
  model: string;
  /** Slots (`-np`); each gets `contextPerSlot` positions. */
  slots?: number;
  contextPerSlot?: number;
  threads?: number;
  apiKey?: string;
  extraArgs?: string[];
}

/** A running llama-server; `restart()` brings it back on the same port. */
export class LlamaServerProcess {
  private child?: ChildProcess;
  private log = '';

  private constructor(private readonly binary: string, readonly port: number, private readonly options: LlamaServerOptions) {}

  static async start(binary: string, options: LlamaServerOptions): Promise<LlamaServerProcess> {
    const server = new LlamaServerProcess(binary, await freePort(), options);
    await server.launch();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What the server printed (for failure messages). */
  get output(): string {
    return this.log.slice(-4000);
  }

  /** SIGKILL, as a crash or an OOM kill would: no goodbye to open connections. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  async stop(): Promise<void> {
    await this.kill();
  }

  private async launch(): Promise<void> {
    const { model, slots = 2, contextPerSlot = 2048, threads = 1, apiKey, extraArgs = [] } = this.options;
    const args = [
      '-m', model, '--host', '127.0.0.1', '--port', String(this.port), '-t', String(threads), '-np', String(slots),
      // Flash attention off, as the local adapter runs (its CPU kernels change logits by batch split).
      '-c', String(slots * contextPerSlot), '--no-warmup', '-fa', 'off', ...(apiKey ? ['--api-key', apiKey] : []), ...extraArgs,
    ];
    this.log = '';
    const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    await this.waitHealthy(child);
  }

  private async waitHealthy(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`llama-server exited at start:\n${this.output}`);
      try {
        const response = await fetch(`${this.url}/health`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`llama-server did not become healthy in 60 s:\n${this.output}`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
