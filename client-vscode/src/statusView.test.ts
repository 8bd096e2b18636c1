import { describe, expect, test } from 'vitest';
import { COMMANDS, presentStatus, withServerStatus, type ClientStatus } from './statusView.js';

const running = (server: ClientStatus['server'], extra: Partial<ClientStatus> = {}): ClientStatus => ({ process: 'running', server, enabled: true, ...extra });

describe('presentStatus', () => {
  test.each([
    [{ process: 'starting', enabled: true }, 'RepoShapley: starting', COMMANDS.showLog],
    [{ process: 'stopped', stopReason: 'exit code 1', enabled: true }, 'RepoShapley: stopped', COMMANDS.restart],
    [running({ state: 'indexing', message: 'x', indexedFiles: 3 }), 'RepoShapley: indexing', COMMANDS.showLog],
    [running({ state: 'ready', message: 'ready' }), 'RepoShapley: ready', COMMANDS.showTrace],
    [running({ state: 'ready', message: 'ready' }, { enabled: false }), 'RepoShapley: disabled', COMMANDS.toggle],
    [running({ state: 'no-model', message: 'No model.' }), 'RepoShapley: no model', COMMANDS.openModelSetting],
    [running({ state: 'error', message: 'boom' }), 'RepoShapley: error', COMMANDS.showLog],
  ] as [ClientStatus, string, string][])('%j -> %s', (status, label, command) => {
    const view = presentStatus(status);
    expect(view.label).toBe(label);
    expect(view.command).toBe(command);
  });

  test('shows indexing progress, the last latency and the server\'s message', () => {
    expect(presentStatus(running({ state: 'indexing', message: 'x', indexedFiles: 12 })).text).toContain('12 files');
    expect(presentStatus(running({ state: 'ready', message: 'ready' }, { lastLatencyMs: 84.6 })).text).toContain('85 ms');
    const noModel = presentStatus(running({ state: 'no-model', message: 'Set reposhapley.modelPath.' }));
    expect(noModel.tooltip).toContain('Set reposhapley.modelPath.');
    expect(noModel.severity).toBe('warning');
    expect(presentStatus({ process: 'stopped', stopReason: 'killed by SIGKILL', enabled: true }).tooltip).toContain('killed by SIGKILL');
  });
});

describe('withServerStatus', () => {
  test('keeps the last latency and file count when a later status omits them', () => {
    let status: ClientStatus = { process: 'starting', enabled: true };
    status = withServerStatus(status, { state: 'ready', message: 'ready', indexedFiles: 5, lastLatencyMs: 40 });
    status = withServerStatus(status, { state: 'ready', message: 'ready' });
    expect(status.process).toBe('running');
    expect(status.lastLatencyMs).toBe(40);
    expect(status.server?.indexedFiles).toBe(5);
  });
});
