/**
 * The model host: the process that owns llama.cpp for every server of one user that loads the
 * same model (hostEndpoint.ts names it). llama.cpp stops the whole process on a failed
 * GGML_ASSERT (SIGABRT), so it runs here, where that ends only this process; the servers
 * (hostConnection.ts) see the socket close, say what happened and keep answering.
 *
 * Started detached by the first server that needs it: `node modelHost.js <socket> <idle seconds> <pid file>`,
 * stdout and stderr to the host's log. It listens on the socket (the listen is the lock: a second
 * host for the same socket finds the first and exits), loads the model at the first `load`, gives
 * each connection its own sessions (each its own KV cache), runs one evaluation at a time for all
 * of them (computeQueue.ts), and exits after `idle seconds` with no server connected.
 */
import { lstatSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter, type CancellationToken, type MessageConnection } from 'vscode-jsonrpc/node';
import type { CompletionModel, GenerationResult, LoadModelOptions, ModelSession } from '../completionModel.js';
import type { Logger, LogLevel } from '../../util/logger.js';
import { ComputeQueue } from './computeQueue.js';
import { modelOptionsOf } from './hostEndpoint.js';
import {
  encodeError, helloRequest, HOST_FAULT_VARIABLE, HOST_PRODUCT, logNotification, operationRequest,
  HOST_LOG_START, HOST_PROTOCOL, type Greeting, type HostOperation, type HostReply, type LoadReply, type SessionOperation, type TokenPiece,
} from './hostProtocol.js';

const [socketPath, idleArgument, pidFile] = process.argv.slice(2);
/** Freeing the model waits for a native call to return; past this the host exits regardless. */
const EXIT_GRACE_MS = 5_000;
const idleMs = Math.max(0, Number(idleArgument ?? 0) * 1000);

/** One connected server: its number (the compute queue's turn order), its sessions, the ids whose text it has. */
interface Client {
  id: number;
  connection: MessageConnection;
  sessions: Set<number>;
  knownPieces: Set<number>;
  /** Its requests in flight: cancelled when it goes, so a closed window's work never runs on. */
  running: Set<AbortController>;
}

const clients = new Set<Client>();
let nextClient = 1;
let loading: { key: string; reply: Promise<LoadReply> } | undefined;
let model: CompletionModel | undefined;
/** A session made right after the load, for the first createSession (see load). */
let preparedSession: Promise<ModelSession> | undefined;
const sessions = new Map<number, ModelSession>();
let nextSession = 1;
const compute = new ComputeQueue();
let idleTimer: NodeJS.Timeout | undefined;
/**
 * Connections accepted that have neither greeted nor closed: a server among them is about to
 * count. The last server leaving arms the idle timer even while one connects, so without them in
 * the count the host could exit under a server that had just connected.
 */
let connecting = 0;
/** When the host exits if no server connects before (while none is connected). */
let idleDeadline = 0;
let stopping = false;
/** The socket file this host listens on, once it does. */
let listeningOn: FileIdentity | undefined;

const logger: Logger = {
  debug: (message) => log('debug', message),
  info: (message) => log('info', message),
  warn: (message) => log('warn', message),
  error: (message) => log('error', message),
};

/** Every connected server hears the host's lines; warnings and errors also go to its log file. */
function log(level: LogLevel, message: string): void {
  if (level === 'warn' || level === 'error') console.error(`${new Date().toISOString()} ${level}: ${message}`);
  for (const client of clients) void client.connection.sendNotification(logNotification, { level, message }).catch(() => undefined);
}

function accept(socket: net.Socket): void {
  const connection = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
  const client: Client = { id: nextClient++, connection, sessions: new Set(), knownPieces: new Set(), running: new Set() };
  // Held while it connects; a connection counts as a server only once it greets as one (below).
  clearTimeout(idleTimer);
  connecting++;
  let settled = false;
  const settle = (): void => {
    if (!settled) connecting--;
    settled = true;
  };
  connection.onRequest(helloRequest, ({ probe }): Greeting => {
    settle();
    // A listing (`reposhapley model hosts`) is not a server: it neither counts nor keeps the host up.
    if (!probe) clients.add(client);
    return { product: HOST_PRODUCT, protocol: HOST_PROTOCOL, pid: process.pid, clients: clients.size, ...(model ? { model: model.info.path } : {}) };
  });
  connection.onRequest(operationRequest, (operation, token) => handle(client, operation, token));
  connection.onClose(() => {
    settle();
    void disconnect(client);
  });
  // A server that vanished mid-message leaves a socket error: the close that follows cleans up.
  socket.on('error', () => undefined);
  connection.listen();
}

async function disconnect(client: Client): Promise<void> {
  for (const controller of client.running) controller.abort(abortError());
  const wasServer = clients.delete(client);
  for (const id of client.sessions) {
    const session = sessions.get(id);
    sessions.delete(id);
    // The last window's prompt cache stays for the next one (a reopened window, the next CLI run).
    if (session && !preparedSession && model) preparedSession = Promise.resolve(session);
    else await session?.dispose().catch(() => undefined);
  }
  if (clients.size > 0) return;
  // A connection that never greeted as a server (a listing, or a host started at the same moment
  // that found this one) keeps the deadline that held before it came: its going must not stop a
  // host that a server is about to connect to.
  if (wasServer) idleDeadline = Date.now() + idleMs;
  armIdleTimer(idleDeadline - Date.now());
}

function armIdleTimer(ms: number): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(shutDownIfIdle, Math.max(0, ms));
}

function shutDownIfIdle(): void {
  // One still connecting re-arms the timer when it goes (disconnect), or counts once it greets.
  if (clients.size > 0 || connecting > 0) return;
  // In the host's log, so that a server that finds the socket closing can be told why.
  console.error(`${new Date().toISOString()} model host: no server connected for its idle time; exiting`);
  void shutDown();
}

async function handle(client: Client, operation: HostOperation, token: CancellationToken): Promise<HostReply> {
  const controller = abortController(token);
  const { signal } = controller;
  client.running.add(controller);
  try {
    await injectFault(operation.op);
    if (operation.op === 'load') return { kind: 'result', value: await load(operation.options) };
    if (operation.op === 'tokenize') return tokenize(client, operation.texts);
    if (operation.op === 'createSession') return { kind: 'result', value: await createSession(client) };
    if (operation.op === 'disposeSession') return { kind: 'result', value: await disposeSession(client, operation.session) };
    return await performQueued(client, operation, signal);
  } catch (error) {
    return { kind: 'failure', error: encodeError(error) };
  } finally {
    client.running.delete(controller);
  }
}

/** One session operation in the client's turn; aborted while it waits, a generation answers 'aborted'. */
async function performQueued(client: Client, operation: SessionOperation, signal: AbortSignal): Promise<HostReply> {
  const session = sessions.get(operation.session);
  if (!session || !client.sessions.has(operation.session)) throw new Error(`model session ${operation.session} does not exist (disposed?)`);
  try {
    const work = session.pendingWork?.(operation.tokens, operation.op === 'generate') ?? operation.tokens.length;
    const { value, waitedMs } = await compute.run(work, signal, async (turn) => {
      session.setPausePoint?.(turn.pause);
      try {
        return await perform(session, operation, signal);
      } finally {
        session.setPausePoint?.(undefined);
      }
    });
    const reuse = { last: session.lastReusedTokens, total: session.totalReusedTokens };
    const generated = operation.op === 'generate' ? newPieces(client, (value as GenerationResult).tokens) : [];
    return { kind: 'result', value, reuse, waitedMs, ...(generated.length > 0 ? { pieces: generated } : {}) };
  } catch (error) {
    if (signal.aborted && operation.op === 'generate') return { kind: 'result', value: { text: '', tokens: [], stoppedBy: 'aborted' } };
    throw error;
  }
}

function perform(session: ModelSession, request: SessionOperation, signal: AbortSignal): Promise<unknown> {
  switch (request.op) {
    case 'decide':
      return session.decide(request.tokens, request.first, request.second, signal);
    case 'decideSequence':
      return session.decideSequence(request.tokens, request.first, request.second, request.steps, signal);
    case 'generate':
      return session.generate(request.tokens, request.options, signal);
    case 'logLikelihood':
      return session.logLikelihood(request.tokens, request.target, signal);
  }
}

/**
 * Tokenizes at once, beside whatever evaluation runs (the tokenizer only reads the vocabulary), so
 * a window building its prompt never waits for another window's completion.
 */
function tokenize(client: Client, texts: readonly string[]): HostReply {
  if (!model) throw new Error('no model loaded in this host');
  const loaded = model;
  const ids = texts.map((text) => loaded.tokenize(text));
  return { kind: 'result', value: { ids, pieces: newPieces(client, ids.flat()) } };
}

/** The text of the ids this client has not been sent yet. */
function newPieces(client: Client, ids: readonly number[]): TokenPiece[] {
  const pieces: TokenPiece[] = [];
  for (const id of ids) {
    if (client.knownPieces.has(id) || !model) continue;
    client.knownPieces.add(id);
    const text = model.detokenize([id], true);
    pieces.push({ id, text, special: text !== '' && model.detokenize([id], false) === '' });
  }
  return pieces;
}

/**
 * Loads the model at the first request; later servers get the same answer. The socket's name
 * already pins the options, so a server asking for others is a bug worth saying. A failed load
 * ends the host once it has answered: the next attempt starts a fresh one.
 */
async function load(options: LoadModelOptions): Promise<LoadReply> {
  const key = JSON.stringify(modelOptionsOf(options));
  if (loading && loading.key !== key) throw new Error('this model host holds a model loaded with other options');
  loading ??= { key, reply: loadOnce(options) };
  const reply = await loading.reply;
  if (reply.kind !== 'ok') setTimeout(() => void shutDown(), 200);
  return reply;
}

async function loadOnce(options: LoadModelOptions): Promise<LoadReply> {
  const { loadLlamaModel } = await import('../llama/loadLlamaModel.js');
  const result = await loadLlamaModel(options, logger);
  if (result.kind !== 'ok') return result;
  model = result.model;
  // The server asks for a session next, but first finishes reading the file's vocabulary itself
  // (~1.8 s on an AVX2 EPYC, begun only now unless the file is hash-pinned; docs/history/2026-12-04-bench-cpus-cold-start.md):
  // making the session now (its context: 0.6-0.8 s there) overlaps the two, so the first
  // completion comes that much sooner.
  preparedSession = model.createSession();
  preparedSession.catch(() => undefined); // its failure is createSession's to report
  return { kind: 'ok', info: model.info };
}

async function createSession(client: Client): Promise<number> {
  if (!model) throw new Error('no model loaded in this host');
  const prepared = preparedSession;
  preparedSession = undefined;
  const session = await (prepared ?? model.createSession());
  const id = nextSession++;
  sessions.set(id, session);
  client.sessions.add(id);
  return id;
}

async function disposeSession(client: Client, id: number): Promise<null> {
  if (!client.sessions.delete(id)) return null;
  await sessions.get(id)?.dispose();
  sessions.delete(id);
  return null;
}

/** Aborted when the request's client cancels it (or, see disconnect, goes away). */
function abortController(token: CancellationToken): AbortController {
  const controller = new AbortController();
  const abort = (): void => controller.abort(abortError());
  if (token.isCancellationRequested) abort();
  else token.onCancellationRequested(abort);
  return controller;
}

function abortError(): Error {
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  return error;
}

function injectFault(op: string): Promise<void> {
  const fault = process.env[HOST_FAULT_VARIABLE];
  if (fault === `abort-at-${op}`) process.abort();
  // A hung native call: this request never answers, aborted or not.
  if (fault === `hang-at-${op}`) return new Promise(() => undefined);
  return Promise.resolve();
}

/** Cancels what runs, frees the model and the socket, then exits (at the latest after EXIT_GRACE_MS). */
async function shutDown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  // libuv removes a Unix socket's path when its server closes, whoever's file is there by then: a
  // host whose path a newer host took over leaves the server open (nothing can reach it) and exits.
  if (process.platform === 'win32' || ownsSocketFile()) server.close();
  removeOwnFiles();
  for (const client of clients) for (const controller of client.running) controller.abort(abortError());
  setTimeout(() => process.exit(0), EXIT_GRACE_MS).unref();
  try {
    await model?.dispose();
  } finally {
    process.exit(0);
  }
}

/**
 * Removes the socket and pid files if they are still this host's: a host that lost its socket to
 * a newer one (which replaced what it took for a crashed host's file) must not remove the newer one's.
 */
function removeOwnFiles(): void {
  if (process.platform !== 'win32' && ownsSocketFile()) unlinkQuietly(socketPath!);
  if (readQuietly(pidFile!) === `${process.pid}\n`) unlinkQuietly(pidFile!);
}

function ownsSocketFile(): boolean {
  return listeningOn !== undefined && sameFile(socketPath!, listeningOn);
}

/** A file as one made at one moment: a file made later at the same path may reuse the inode number. */
interface FileIdentity {
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
}

function identityOf(file: string): FileIdentity | undefined {
  try {
    const { dev, ino, ctimeNs } = lstatSync(file, { bigint: true });
    return { dev, ino, ctimeNs };
  } catch {
    return undefined;
  }
}

function sameFile(file: string, identity: FileIdentity): boolean {
  const now = identityOf(file);
  return now !== undefined && now.dev === identity.dev && now.ino === identity.ino && now.ctimeNs === identity.ctimeNs;
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function readQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Tries to take a socket that a crashed host left behind this many times before giving up. */
const LISTEN_ATTEMPTS = 3;

/**
 * Listens on the socket. Taken: if a host answers there, that one serves and this one exits;
 * if nothing answers (a host that crashed left its socket file), the file is replaced, unless
 * another host replaced it in the meantime (two servers starting hosts at once), in which case
 * this one looks again.
 */
function listen(attempt = 1): void {
  // Each attempt's handlers go with it: a failed attempt's would otherwise fire at a later success.
  const onListening = (): void => {
    server.off('error', onError);
    server.on('error', (error) => console.error(`${new Date().toISOString()} model host: ${error.message}`));
    listeningOn = identityOf(socketPath!);
    writeFileSync(pidFile!, `${process.pid}\n`);
    // No server connects within the idle time: nothing wanted this host after all.
    idleDeadline = Date.now() + Math.max(idleMs, 10_000);
    if (clients.size === 0) armIdleTimer(idleDeadline - Date.now());
    // A load request comes next: the llama.cpp runtime (~1 s to import and start) is begun now,
    // while the server connects and greets.
    void import('../llama/llamaRuntime.js').then(({ prepareRuntime }) => prepareRuntime()).catch(() => undefined);
  };
  const onError = (error: NodeJS.ErrnoException): void => {
    server.off('listening', onListening);
    if (error.code !== 'EADDRINUSE' || attempt >= LISTEN_ATTEMPTS) {
      console.error(`model host: cannot listen on ${socketPath}: ${error.message}`);
      process.exit(1);
    }
    const found = identityOf(socketPath!);
    const probe = net.connect(socketPath!);
    probe.once('connect', () => {
      probe.destroy();
      process.exit(0);
    });
    probe.once('error', () => {
      if (found && sameFile(socketPath!, found)) unlinkQuietly(socketPath!);
      listen(attempt + 1);
    });
  };
  server.once('error', onError);
  server.once('listening', onListening);
  server.listen(socketPath);
}

if (!socketPath || !pidFile) {
  console.error('usage: modelHost.js <socket> <idle seconds> <pid file>');
  process.exit(2);
}
console.error(`${HOST_LOG_START} ${process.pid}, ${new Date().toISOString()}`);
const server = net.createServer(accept);
process.on('SIGTERM', () => void shutDown());
listen();
