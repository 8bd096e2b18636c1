import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-languageserver/node';
import { afterEach, expect, test, vi } from 'vitest';
import { isProcessGone, PARENT_CHECK_MS, watchParentProcess, withoutParentProcessId, type KillFunction } from './parentWatchdog.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A kill() that throws an errno error with `code`, or succeeds for `code` undefined. */
function killWith(code: string | undefined): KillFunction {
  return () => {
    if (code === undefined) return true;
    throw Object.assign(new Error(`kill: ${code}`), { code });
  };
}

test.each([
  [undefined, false], // signal 0 delivered: alive
  ['EPERM', false], // alive, but another user's or in another PID namespace: vscode-languageserver exited here
  ['ESRCH', true], // no such process
  ['EINVAL', false], // not a statement about the process: stdin closing still ends a vanished client
])('kill(pid, 0) failing with %s: gone %s', (code, gone) => {
  expect(isProcessGone(4242, killWith(code))).toBe(gone);
});

test('with the real kill: this process is alive, a pid no process can have is gone', () => {
  expect(isProcessGone(process.pid)).toBe(false);
  expect(isProcessGone(0x7fff_fffe)).toBe(true); // above any pid_max Linux allows
});

test('the watch ends the server only once the editor is gone, not while kill() says EPERM', () => {
  vi.useFakeTimers();
  let code: string | undefined = 'EPERM';
  const kill: KillFunction = (pid, signal) => killWith(code)(pid, signal);
  const onGone = vi.fn();
  watchParentProcess(4242, onGone, { kill });
  vi.advanceTimersByTime(10 * PARENT_CHECK_MS);
  expect(onGone).not.toHaveBeenCalled();
  code = 'ESRCH';
  vi.advanceTimersByTime(PARENT_CHECK_MS);
  expect(onGone).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(10 * PARENT_CHECK_MS);
  expect(onGone).toHaveBeenCalledTimes(1);
});

/** A reader the test feeds messages to by hand. */
class ManualReader extends AbstractMessageReader {
  private callback?: DataCallback;
  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    return { dispose: () => (this.callback = undefined) };
  }
  feed(message: Message): void {
    this.callback!(message);
  }
}

function initialize(processId: unknown): Message {
  return { jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId, rootUri: null, capabilities: {} } } as Message;
}

test('initialize reaches the connection without processId; a usable id goes to our watch', () => {
  const reader = new ManualReader();
  const parents: number[] = [];
  const delivered: Message[] = [];
  withoutParentProcessId(reader, (pid) => parents.push(pid)).listen((message) => delivered.push(message));

  reader.feed(initialize(4242));
  for (const odd of [-1, 0, 1.5, 2 ** 53 + 2, 1e308, '4242']) reader.feed(initialize(odd));
  const other = { jsonrpc: '2.0', id: 2, method: 'shutdown', params: { processId: 7 } } as Message;
  reader.feed(other);
  reader.feed(initialize(null));

  expect(parents).toEqual([4242]);
  expect(delivered.slice(0, 7).map((m) => (m as { params: { processId: unknown } }).params.processId)).toEqual(Array(7).fill(null));
  expect(delivered[0]).toMatchObject({ id: 1, method: 'initialize', params: { rootUri: null, capabilities: {} } });
  expect(delivered[7]).toBe(other);
  expect(delivered).toHaveLength(9);
});
