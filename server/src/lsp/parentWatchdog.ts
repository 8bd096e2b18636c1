/**
 * Our own watch on the editor's process (`processId` in `initialize`), in place of
 * vscode-languageserver's. That one exits with 1 as soon as `kill(processId, 0)` throws, EPERM
 * included, so a server running as another user than the editor, or in another PID namespace
 * (a container), died 3 s after initialize although its editor was alive. Here only ESRCH (no
 * such process) means the editor is gone; anything else leaves the server running, and a client
 * that really vanished still closes stdin (cli/serve.ts).
 */
import type { DataCallback, Disposable, Message, MessageReader } from 'vscode-languageserver/node';

/** How often the editor's process is checked (vscode-languageserver's period). */
export const PARENT_CHECK_MS = 3_000;

/** The part of `process.kill` the watch uses; tests pass a fake. */
export type KillFunction = (pid: number, signal: number) => unknown;

const realKill: KillFunction = (pid, signal) => process.kill(pid, signal);

/** Whether process `pid` is gone: signal 0 checks existence; EPERM means it exists but is not ours. */
export function isProcessGone(pid: number, kill: KillFunction = realKill): boolean {
  try {
    kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Checks `pid` every `intervalMs`; calls `onGone` once when it no longer exists. Returns a stop function. */
export function watchParentProcess(
  pid: number, onGone: () => void, options: { intervalMs?: number; kill?: KillFunction } = {},
): () => void {
  const timer = setInterval(() => {
    if (!isProcessGone(pid, options.kill)) return;
    clearInterval(timer);
    onGone();
  }, options.intervalMs ?? PARENT_CHECK_MS);
  timer.unref(); // the watch alone never keeps the process alive
  return () => clearInterval(timer);
}

/**
 * Wraps `reader` so that `initialize` reaches the connection with `processId: null` (the library
 * then starts no watchdog of its own) and `onParent` receives the id when it can name a process.
 */
export function withoutParentProcessId(reader: MessageReader, onParent: (pid: number) => void): MessageReader {
  return {
    onError: reader.onError,
    onClose: reader.onClose,
    onPartialMessage: reader.onPartialMessage,
    listen: (callback: DataCallback): Disposable => reader.listen((message) => callback(takeProcessId(message, onParent))),
    dispose: () => reader.dispose(),
  };
}

function takeProcessId(message: Message, onParent: (pid: number) => void): Message {
  const request = message as { method?: unknown; params?: unknown };
  if (request.method !== 'initialize' || typeof request.params !== 'object' || request.params === null) return message;
  const params = request.params as { processId?: unknown };
  if (params.processId === undefined || params.processId === null) return message;
  // Also an id that names no process goes: the library would exit on what kill() throws for it.
  if (isPid(params.processId)) onParent(params.processId);
  return { ...message, params: { ...params, processId: null } } as Message;
}

/** A positive 32-bit integer: 0 and negatives would address process groups, not a process. */
function isPid(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 0x7fff_ffff;
}
