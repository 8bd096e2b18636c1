/**
 * The messages between a server and a model host (modelHost.ts), the process that owns llama.cpp
 * for every server of one user that loads the same model. They travel as JSON-RPC
 * (vscode-jsonrpc) over the host's socket: a request per operation, cancelled by the request's
 * own cancellation, and the host's log lines as notifications. Errors cross as {@link WireError}
 * inside the reply, so the port's error classes come back as they were thrown.
 */
import { NotificationType, RequestType } from 'vscode-jsonrpc/node';
import {
  ContextOverflowError, type BinaryDecision, type GenerationOptions, type GenerationResult, type LoadModelOptions, type ModelInfo,
} from '../completionModel.js';
import type { LogLevel } from '../../util/logger.js';

/** Operations on one session, named as the port's methods. */
export type SessionOperation =
  | { op: 'decide'; session: number; tokens: number[]; first: number; second: number }
  | { op: 'decideSequence'; session: number; tokens: number[]; first: number; second: number; steps: number }
  | { op: 'generate'; session: number; tokens: number[]; options: GenerationOptions }
  | { op: 'logLikelihood'; session: number; tokens: number[]; target: number[] };

/** Everything a server asks of the host; each request gets exactly one reply. */
export type HostOperation =
  | { op: 'load'; options: LoadModelOptions }
  | { op: 'tokenize'; texts: string[] }
  | { op: 'createSession' }
  | { op: 'disposeSession'; session: number }
  | SessionOperation;

/** What the host loaded: the model's self-description, or the loader's reason. */
export type LoadReply = { kind: 'ok'; info: ModelInfo } | { kind: 'missing' | 'invalid' | 'error'; message: string };

/** The value each operation resolves with. */
export interface OperationResults {
  load: LoadReply;
  tokenize: { ids: number[][]; pieces: TokenPiece[] };
  createSession: number;
  disposeSession: null;
  decide: BinaryDecision;
  decideSequence: BinaryDecision[];
  generate: GenerationResult;
  logLikelihood: number;
}

/**
 * The text of a token id, sent once per connection with the first answer that holds the id, so
 * that a server can detokenize without a vocabulary. `special`: a control token, dropped from
 * text unless asked for.
 */
export interface TokenPiece {
  id: number;
  text: string;
  special: boolean;
}

/** A session's prefix-reuse counters after an operation (ModelSession.lastReusedTokens). */
export interface ReuseCounts {
  last: number;
  total: number;
}

/** An error as it crosses the socket; {@link decodeError} rebuilds the port's error classes. */
export interface WireError {
  name: string;
  message: string;
  overflow?: { operation: string; neededTokens: number; contextSize: number };
}

/**
 * One reply: the value, the session's reuse counters, and how long the operation waited while
 * other servers' operations ran; or the error it failed with.
 */
export type HostReply =
  | { kind: 'result'; value: unknown; reuse?: ReuseCounts; waitedMs?: number; pieces?: TokenPiece[] }
  | { kind: 'failure'; error: WireError };

/** The first exchange on a connection: a socket that does not answer it so is not a host. */
export interface Greeting {
  product: typeof HOST_PRODUCT;
  protocol: number;
  pid: number;
  /** Servers connected, this one included (a probe excluded). */
  clients: number;
  /** The model file, once loaded. */
  model?: string;
}

export const HOST_PRODUCT = 'reposhapley-model-host';
/** The line a host writes first to its log: a crash is named only from lines after the last one. */
export const HOST_LOG_START = '--- model host started, pid';
/** Bumped whenever the messages change: hosts of another protocol get another address. */
export const HOST_PROTOCOL = 3;

/** `probe`: a listing, not a server; it does not count as connected. */
export const helloRequest = new RequestType<{ protocol: number; probe?: boolean }, Greeting, void>('host/hello');
export const operationRequest = new RequestType<HostOperation, HostReply, void>('host/operation');
export const logNotification = new NotificationType<{ level: LogLevel; message: string }>('host/log');

export function encodeError(error: unknown): WireError {
  if (error instanceof ContextOverflowError) {
    const { operation, neededTokens, contextSize } = error;
    return { name: error.name, message: error.message, overflow: { operation, neededTokens, contextSize } };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export function decodeError(wire: WireError): Error {
  if (wire.overflow) return new ContextOverflowError(wire.overflow.operation, wire.overflow.neededTokens, wire.overflow.contextSize);
  const error = new Error(wire.message);
  error.name = wire.name;
  return error;
}

/**
 * Test hook: `REPOSHAPLEY_MODEL_HOST_FAULT=abort-at-<op>` makes the host abort natively (SIGABRT,
 * as llama.cpp's GGML_ASSERT does) when that operation arrives; `hang-at-<op>` makes it never
 * answer that operation (a hung native call). Real asserts at evaluation time
 * need a model file that passes every header check, which the tests cannot make on demand.
 * A host started with a fault is never shared with one started without (hostEndpoint.ts).
 */
export const HOST_FAULT_VARIABLE = 'REPOSHAPLEY_MODEL_HOST_FAULT';
