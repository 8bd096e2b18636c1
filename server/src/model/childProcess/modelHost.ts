/**
 * The model host: the child process that owns llama.cpp for the server. llama.cpp stops the
 * whole process on a failed GGML_ASSERT (SIGABRT), at load or in the middle of an evaluation, so
 * it runs here, where that ends only this process; the server (childProcessModel.ts) sees the
 * exit, says what happened and keeps answering.
 *
 * One model per host, its sessions by number. Requests run as they arrive; a session's own
 * queue (llama/llamaSession.ts) keeps them in order, and an abort message reaches the request's
 * AbortSignal, so a cancelled generation stops within one token.
 */
import type { CompletionModel, LoadModelOptions, ModelSession } from '../completionModel.js';
import type { Logger, LogLevel } from '../../util/logger.js';
import {
  encodeError, HOST_FAULT_VARIABLE, type HostMessage, type HostRequest, type LoadReply, type ParentMessage, type SessionOperation,
} from './hostProtocol.js';

let model: CompletionModel | undefined;
/** A session made right after the load, for the server's first createSession (see load). */
let preparedSession: Promise<ModelSession> | undefined;
const sessions = new Map<number, ModelSession>();
let nextSession = 1;
const running = new Map<number, AbortController>();

function send(message: HostMessage): void {
  // The channel closes when the server goes; the disconnect handler then ends this process.
  if (process.connected) process.send?.(message);
}

const logger: Logger = {
  debug: (message) => log('debug', message),
  info: (message) => log('info', message),
  warn: (message) => log('warn', message),
  error: (message) => log('error', message),
};

function log(level: LogLevel, message: string): void {
  send({ kind: 'log', level, message });
}

async function handle(message: ParentMessage): Promise<void> {
  if (message.op === 'exit') return shutDown();
  if (message.op === 'abort') return running.get(message.id)?.abort(abortReason());
  const controller = new AbortController();
  running.set(message.id, controller);
  try {
    await injectFault(message.op);
    const value = await perform(message, controller.signal);
    const session = 'session' in message ? sessions.get(message.session) : undefined;
    const reuse = session ? { last: session.lastReusedTokens, total: session.totalReusedTokens } : undefined;
    send({ kind: 'result', id: message.id, value, ...(reuse ? { reuse } : {}) });
  } catch (error) {
    send({ kind: 'failure', id: message.id, error: encodeError(error) });
  } finally {
    running.delete(message.id);
  }
}

async function perform(request: HostRequest, signal: AbortSignal): Promise<unknown> {
  switch (request.op) {
    case 'load':
      return load(request.options);
    case 'createSession': {
      const session = await takeSession();
      sessions.set(nextSession, session);
      return nextSession++;
    }
    case 'disposeSession':
      await sessions.get(request.session)?.dispose();
      sessions.delete(request.session);
      return null;
    default:
      return performOnSession(request, signal);
  }
}

function performOnSession(request: SessionOperation, signal: AbortSignal): Promise<unknown> {
  const session = sessions.get(request.session);
  if (!session) throw new Error(`model session ${request.session} does not exist (disposed?)`);
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

async function load(options: LoadModelOptions): Promise<LoadReply> {
  if (model) throw new Error('this model host has a model already; start another host for another model');
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

/** The session made at load, once; a new one after that. */
function takeSession(): Promise<ModelSession> {
  const prepared = preparedSession;
  preparedSession = undefined;
  return prepared ?? loaded().createSession();
}

function loaded(): CompletionModel {
  if (!model) throw new Error('no model loaded in this host');
  return model;
}

function abortReason(): Error {
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

async function shutDown(): Promise<void> {
  for (const controller of running.values()) controller.abort(abortReason());
  try {
    await model?.dispose();
  } finally {
    process.exit(0);
  }
}

process.on('message', (message: ParentMessage) => void handle(message));
// The server went away (its end of the channel closed): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
