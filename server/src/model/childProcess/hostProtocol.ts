/**
 * The messages between the server and its model host, the child process that owns llama.cpp
 * (modelHost.ts). Node's IPC channel carries them with `serialization: 'advanced'` (structured
 * clone), so token arrays and results cross as they are; errors cross as {@link WireError}.
 */
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

/** Everything the server asks of the host; each request gets exactly one reply. */
export type HostOperation =
  | { op: 'load'; options: LoadModelOptions }
  | { op: 'createSession' }
  | { op: 'disposeSession'; session: number }
  | SessionOperation;

/** What the host loaded: the model's self-description, or the loader's reason. */
export type LoadReply = { kind: 'ok'; info: ModelInfo } | { kind: 'missing' | 'invalid' | 'error'; message: string };

/** The value each operation resolves with. */
export interface OperationResults {
  load: LoadReply;
  createSession: number;
  disposeSession: null;
  decide: BinaryDecision;
  decideSequence: BinaryDecision[];
  generate: GenerationResult;
  logLikelihood: number;
}

export type HostRequest = HostOperation & { id: number };

/** Server to host: a request, the abort of a running or queued one, or the end of the host. */
export type ParentMessage = HostRequest | { op: 'abort'; id: number } | { op: 'exit' };

/** A session's prefix-reuse counters after an operation (ModelSession.lastReusedTokens). */
export interface ReuseCounts {
  last: number;
  total: number;
}

/** An error as it crosses the channel; {@link decodeError} rebuilds the port's error classes. */
export interface WireError {
  name: string;
  message: string;
  overflow?: { operation: string; neededTokens: number; contextSize: number };
}

/** Host to server: one reply per request, and log lines (llama.cpp's included) for the server's log. */
export type HostMessage =
  | { kind: 'result'; id: number; value: unknown; reuse?: ReuseCounts }
  | { kind: 'failure'; id: number; error: WireError }
  | { kind: 'log'; level: LogLevel; message: string };

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
 */
export const HOST_FAULT_VARIABLE = 'REPOSHAPLEY_MODEL_HOST_FAULT';
