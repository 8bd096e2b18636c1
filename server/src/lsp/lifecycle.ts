/**
 * The LSP lifecycle as the specification states it: before the `initialize` answer, requests get
 * ServerNotInitialized (−32002) and notifications are dropped; `initialize` is taken once; after
 * `shutdown` every request but `exit` gets InvalidRequest. Without this, a repeated `initialize`
 * built a second engine (and loaded the model again) and never disposed the first (issue 22).
 */
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import type { Logger } from '../util/logger.js';

export type Lifecycle = 'uninitialized' | 'initializing' | 'running' | 'shut-down';

/** The part of the server's state the lifecycle reads and moves (ServerState has it). */
export interface LifecycleHolder {
  lifecycle: Lifecycle;
  readonly logger: Logger;
}

/** Throws the error reply a request gets in the current state, if it gets one. */
export function checkRequestAllowed(state: LifecycleHolder, method: string): void {
  if (state.lifecycle === 'uninitialized' || state.lifecycle === 'initializing') {
    throw new ResponseError(ErrorCodes.ServerNotInitialized, `${method} before the initialize request was answered`);
  }
  if (state.lifecycle === 'shut-down') throw new ResponseError(ErrorCodes.InvalidRequest, `${method} after shutdown: only exit is allowed now`);
}

/** Throws when `initialize` may not run now; else marks it as under way. */
export function beginInitialize(state: LifecycleHolder): void {
  if (state.lifecycle === 'shut-down') throw new ResponseError(ErrorCodes.InvalidRequest, 'initialize after shutdown: only exit is allowed now');
  if (state.lifecycle !== 'uninitialized') throw new ResponseError(ErrorCodes.InvalidRequest, 'initialize was already received; it is sent once per session');
  state.lifecycle = 'initializing';
}

/** A request handler that answers the lifecycle's error replies before running `handler`. */
export function gateRequest<P, R, A extends unknown[]>(
  state: LifecycleHolder, method: string, handler: (params: P, ...rest: A) => Promise<R>,
): (params: P, ...rest: A) => Promise<R> {
  return async (params, ...rest) => {
    checkRequestAllowed(state, method);
    return handler(params, ...rest);
  };
}

/** A notification handler that runs only while the server is running (dropped before initialize and after shutdown). */
export function gateNotification<P>(state: LifecycleHolder, method: string, handler: (params: P) => void): (params: P) => void {
  return (params) => {
    if (state.lifecycle === 'running') return handler(params);
    state.logger.debug(`${method} dropped: the server is ${state.lifecycle}`);
  };
}
