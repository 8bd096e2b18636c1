/**
 * One model host shared by the servers that load the same model, against the real node-llama-cpp
 * and real processes: they share its process and memory, keep their own sessions, survive each
 * other, and come back when the host is killed. Sockets that are stale, another user's, or not a
 * host at all are replaced or refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readFileSync, unlinkSync, type Stats } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { writeTinyModel, type TinyModel } from '../../../../test/support/tinyModel.js';
import type { LoadModelOptions } from '../completionModel.js';
import { createMemoryLogger } from '../../util/logger.js';
import { ChildProcessCompletionModel, loadModelInChildProcess, ModelHostExitedError } from './childProcessModel.js';
import { hostEnvironment, listHosts, serverVersion, type ModelHostOptions } from './hostConnection.js';
import { SERVER_NODE_FLAGS } from '../../../../shared/nodeFlags.js';
import { runModelHosts } from '../../cli/hostCommand.js';
import { hostEndpoint, type HostEndpoint, type OwnerCheck } from './hostEndpoint.js';
import { packageRoot } from '../../util/packageRoot.js';
import { isRunning } from '../../../../test/support/testHosts.js';

const SOURCE = 'def load_config(path):\n    with open(path) as handle:\n        for line in handle:\n            ';
const OTHER = 'class Triangle:\n    def __init__(self, a, b, c):\n        self.a = a\n';

let dir: string;
let hosts: string;
let tiny: TinyModel;
const logger = createMemoryLogger();
const opened: ChildProcessCompletionModel[] = [];
/** Host processes a test started by hand: killed after it, whatever it asserted. */
const started: ChildProcess[] = [];

function options(extra: Partial<LoadModelOptions> = {}): LoadModelOptions {
  return { path: tiny.path, threads: 1, gpuLayers: 0, host: { shared: true, idleSeconds: 1 }, ...extra };
}

async function load(extra: Partial<LoadModelOptions> = {}, hostOptions: ModelHostOptions = {}): Promise<ChildProcessCompletionModel> {
  const result = await loadModelInChildProcess(options(extra), logger, { directory: hosts, ...hostOptions });
  if (result.kind !== 'ok') throw new Error(result.message);
  opened.push(result.model as ChildProcessCompletionModel);
  return result.model as ChildProcessCompletionModel;
}

async function waitUntil(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'shared-host-test-'));
  hosts = path.join(dir, 'hosts');
  tiny = await writeTinyModel({ path: path.join(dir, 'tiny.gguf') });
});

afterEach(async () => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
  await Promise.all(opened.splice(0).map((model) => model.dispose()));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('servers loading the same model', () => {
  test('share one host; each keeps its own session and prompt cache, and says how long it waited', async () => {
    const [first, second] = [await load(), await load()];
    expect(second.hostPid).toBe(first.hostPid);
    const [mine, theirs] = [await first.createSession(), await second.createSession()];
    const [prompt, other] = await first.tokenizeMany([SOURCE, OTHER]);
    const together = await Promise.all([mine.generate(prompt, { maxTokens: 16, singleLine: false }), theirs.generate(other, { maxTokens: 16, singleLine: false })]);
    // One evaluation at a time: whichever went second waited for the other.
    expect(Math.max(mine.totalSharedWaitMs!, theirs.totalSharedWaitMs!)).toBeGreaterThan(0);
    // The other server's prompt did not evict this one's: the same prompt again is read from the cache.
    const again = await mine.generate(prompt, { maxTokens: 16, singleLine: false });
    expect(again).toEqual(together[0]);
    expect(mine.lastReusedTokens).toBeGreaterThanOrEqual(prompt.length - 1);
  });

  test.runIf(process.platform === 'linux')('the host runs with the servers\' node flags and two malloc arenas', async () => {
    const model = await load();
    const [argv, environ] = ['cmdline', 'environ'].map((file) => readFileSync(`/proc/${model.hostPid}/${file}`, 'utf8').split('\0'));
    expect(argv!.slice(1, 1 + SERVER_NODE_FLAGS.length)).toEqual(SERVER_NODE_FLAGS);
    expect(environ).toContain('MALLOC_ARENA_MAX=2');
    expect(environ).toContain('GGML_NO_BACKTRACE=1');
  });

  test('a MALLOC_ARENA_MAX the user set is kept', () => {
    expect(hostEnvironment({ MALLOC_ARENA_MAX: '8', PATH: '/bin' })).toEqual({ MALLOC_ARENA_MAX: '8', PATH: '/bin', GGML_NO_BACKTRACE: '1' });
    expect(hostEnvironment({ PATH: '/bin' }).MALLOC_ARENA_MAX).toBe('2');
  });

  test('`model hosts` lists a host with its model and servers, without counting itself; --stop stops it', async () => {
    const [first] = [await load(), await load()];
    const listed = await listHosts(hosts);
    expect(listed).toEqual([{ socket: hostEndpoint(options(), hosts, serverVersion()).socket, pid: first.hostPid, clients: 2, model: tiny.path }]);
    expect((await listHosts(hosts))[0]!.clients).toBe(2); // the first listing did not stay connected
    const lines: string[] = [];
    const output = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    await runModelHosts({ stop: true }, { output, directory: hosts });
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^stopped pid ${first.hostPid}: .*tiny\\.gguf, 2 servers connected`))]);
    await waitUntil('the stopped host to exit', () => !isRunning(first.hostPid!));
    await runModelHosts({}, { output, directory: hosts });
    expect(lines.at(-1)).toBe('no model host is running');
  });

  test('other load options get another host; a private one ends with its server', async () => {
    const shared = await load();
    const otherContext = await load({ contextSize: 256 });
    expect(otherContext.hostPid).not.toBe(shared.hostPid);
    const own = await load({ host: { shared: false, idleSeconds: 300 } });
    expect(own.hostPid).not.toBe(shared.hostPid);
    await own.dispose();
    expect(isRunning(own.hostPid!)).toBe(false);
  });

  test('one server leaving leaves the other untouched; the host exits after its idle time once none is left', async () => {
    const [first, second] = [await load(), await load()];
    const pid = first.hostPid!;
    const session = await second.createSession();
    await first.dispose();
    expect((await session.generate((await second.tokenizeMany([SOURCE]))[0]!, { maxTokens: 4, singleLine: false })).stoppedBy).not.toBe('aborted');
    expect(second.failure).toBeUndefined();
    await second.dispose();
    expect(isRunning(pid)).toBe(true); // idle for 1 s first: the next window would find it warm
    await waitUntil('the idle host to exit', () => !isRunning(pid));
    expect(existsSync(hostEndpoint(options(), hosts, serverVersion()).socket)).toBe(false);
  });
});

describe('faults', () => {
  test('a connection still greeting keeps the host up when the last server leaves; it exits once that connection goes', async () => {
    const first = await load();
    const pid = first.hostPid!;
    // A server connecting at the moment the last one leaves: accepted, not greeted yet.
    const connecting = net.connect(hostEndpoint(options(), hosts, serverVersion()).socket);
    await new Promise<void>((resolve, reject) => connecting.once('connect', resolve).once('error', reject));
    await first.dispose();
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // twice the idle time
    expect(isRunning(pid)).toBe(true);
    connecting.destroy();
    await waitUntil('the idle host to exit', () => !isRunning(pid));
  });

  test('the host killed while two servers complete: both fail at once, may load again, and the next host answers within 10 s', async () => {
    const [first, second] = [await load(), await load()];
    const sessions = [await first.createSession(), await second.createSession()];
    const [loop] = await first.tokenizeMany(['    return']);
    const running = sessions.map((s) => s.generate(loop, { maxTokens: 2_000, singleLine: false, loopPenalty: 0 }));
    process.kill(first.hostPid!, 'SIGKILL');
    const outcomes = await Promise.allSettled(running);
    for (const outcome of outcomes) expect(outcome.status === 'rejected' && outcome.reason).toBeInstanceOf(ModelHostExitedError);
    expect(first.failure).toMatch(/killed by SIGKILL/);
    expect(first.failureRetryable).toBe(true); // this server started it: it saw the signal
    expect(second.failure).toMatch(/ended/);
    expect(second.failureRetryable).toBe(true); // no assertion in the host's log: no fault of the model

    // The killed host left its socket file behind: the next load replaces it.
    const { socket } = hostEndpoint(options(), hosts, serverVersion());
    expect(existsSync(socket)).toBe(true);
    const started = performance.now();
    const again = await load();
    const session = await again.createSession();
    expect((await session.generate((await again.tokenizeMany([SOURCE]))[0]!, { maxTokens: 4, singleLine: false })).text).toBeTypeOf('string');
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(again.hostPid).not.toBe(first.hostPid);
  });

  test('a host started while another listens exits, and its look at the socket does not stop the one that serves', async () => {
    const endpoint = await freshEndpoint('race-probe');
    const serving = startHostProcess(endpoint);
    await waitUntil('the first host to listen', () => pidIn(endpoint.pid) === serving.pid);
    // The same start a second server makes at the same moment: it finds the first host and exits.
    const late = startHostProcess(endpoint);
    expect(await exitCodeOf(late)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(serving.exitCode).toBeNull();
    expect(await listHosts(path.dirname(endpoint.socket))).toMatchObject([{ pid: serving.pid }]);
    serving.kill('SIGKILL');
  });

  test("a host that lost its socket file to a newer host leaves the newer host's files alone when it stops", async () => {
    const endpoint = await freshEndpoint('race-takeover');
    // Their pid files say when they listen: a connection now would be a look at the socket.
    const older = startHostProcess(endpoint);
    await waitUntil('the older host to listen', () => pidIn(endpoint.pid) === older.pid);
    // What a host replacing a crashed one's file does when that file was in fact just made.
    unlinkSync(endpoint.socket);
    const newer = startHostProcess(endpoint);
    await waitUntil('the newer host to listen', () => pidIn(endpoint.pid) === newer.pid);
    older.kill('SIGTERM');
    await exitCodeOf(older);
    expect(await listHosts(path.dirname(endpoint.socket))).toMatchObject([{ pid: newer.pid }]);
    expect(readFileSync(endpoint.pid, 'utf8')).toBe(`${newer.pid}\n`);
    newer.kill('SIGKILL');
  });

  test('a socket of another user is refused, and so is a folder others may enter', async () => {
    const { socket } = hostEndpoint(options(), hosts, serverVersion());
    const holder = await load(); // a socket now exists at that path
    expect(existsSync(socket)).toBe(true);
    const someoneElse: OwnerCheck = { uid: process.getuid!(), lstat: (file) => (file === socket ? ownedBy(lstatSync(file), process.getuid!() + 1) : lstatSync(file)) };
    const refused = await loadModelInChildProcess(options(), logger, { directory: hosts, owner: someoneElse });
    expect(refused.kind === 'error' && refused.message).toMatch(/belongs to another user \(uid \d+\); it is refused/);
    await holder.dispose();

    const open = path.join(dir, 'open-hosts');
    await loadModelInChildProcess(options({ host: { shared: false, idleSeconds: 0 } }), logger, { directory: open }).then((r) => r.kind === 'ok' && r.model.dispose());
    chmodSync(open, 0o755);
    const exposed = await loadModelInChildProcess(options(), logger, { directory: open });
    expect(exposed.kind === 'error' && exposed.message).toMatch(/open to other users \(mode 755\).*chmod 700/);
  });

  test('a socket that is not a model host is refused with what to do', async () => {
    const strangers = path.join(dir, 'strangers');
    const { socket } = hostEndpoint(options(), strangers, serverVersion());
    // Create the folder as the server would, then put a silent listener where the host would be.
    await loadModelInChildProcess(options({ host: { shared: false, idleSeconds: 0 } }), logger, { directory: strangers }).then((r) => r.kind === 'ok' && r.model.dispose());
    const silent = net.createServer((connection) => connection.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(socket, resolve));
    try {
      const result = await loadModelInChildProcess(options(), logger, { directory: strangers });
      expect(result.kind === 'error' && result.message).toMatch(/answers, but not as a RepoShapley model host of this version; remove it/);
    } finally {
      silent.close();
    }
  });
  test('a host that drops the connection as it dies is looked for again: a new host serves', async () => {
    const { directory, socket } = await dyingHostFolder('dying');
    // A killed host's socket takes connections until the kernel closes it, then drops them.
    const dying = net.createServer((connection) => {
      connection.destroy();
      dying.close();
    });
    await new Promise<void>((resolve) => dying.listen(socket, resolve));
    const result = await loadModelInChildProcess(options(), logger, { directory });
    expect(result.kind).toBe('ok');
    if (result.kind === 'ok') opened.push(result.model as ChildProcessCompletionModel);
    expect(await listHosts(directory)).toMatchObject([{ clients: 1, model: tiny.path }]);
  });

  test('a socket that keeps dropping connections unanswered is refused after a few looks, naming its log', async () => {
    const { directory, socket } = await dyingHostFolder('dropping');
    let connections = 0;
    const dropping = net.createServer((connection) => {
      connections++;
      connection.destroy();
    });
    await new Promise<void>((resolve) => dropping.listen(socket, resolve));
    try {
      const result = await loadModelInChildProcess(options(), logger, { directory });
      expect(result.kind === 'error' && result.message).toMatch(/closed the connection before greeting, 4 times .*its log: .*\.log/);
      expect(connections).toBe(4);
    } finally {
      dropping.close();
    }
  });
});

/** A hosts folder made as a server makes it, and the socket path a host for {@link options} takes there. */
async function dyingHostFolder(name: string): Promise<{ directory: string; socket: string }> {
  const directory = path.join(dir, name);
  await loadModelInChildProcess(options({ host: { shared: false, idleSeconds: 0 } }), logger, { directory }).then((r) => r.kind === 'ok' && r.model.dispose());
  return { directory, socket: hostEndpoint(options(), directory, serverVersion()).socket };
}

/** `stats` as if another user owned the file. */
function ownedBy(stats: Stats, uid: number): Stats {
  return Object.assign(Object.create(Object.getPrototypeOf(stats) as object) as Stats, stats, { uid });
}

/** An endpoint in a folder of its own (as a server would make it), for hosts started by hand. */
async function freshEndpoint(name: string): Promise<HostEndpoint> {
  const directory = path.join(dir, name);
  await mkdir(directory, { mode: 0o700 });
  return hostEndpoint(options(), directory, serverVersion());
}

/** A host process as a server starts one, idle time 0 (it then waits 10 s for its first server). */
function startHostProcess(endpoint: HostEndpoint): ChildProcess {
  const script = path.join(packageRoot(), 'dist', 'server', 'src', 'model', 'childProcess', 'modelHost.js');
  const child = spawn(process.execPath, [script, endpoint.socket, '0', endpoint.pid], { stdio: 'ignore' });
  started.push(child);
  return child;
}

function pidIn(pidFile: string): number | undefined {
  return existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : undefined;
}

function exitCodeOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
