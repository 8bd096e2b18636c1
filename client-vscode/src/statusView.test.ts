import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { COMMANDS, presentStatus, withServerStatus, type ClientStatus } from './statusView.js';

const PULLABLE = { name: 'qwen2.5-coder-0.5b', sizeBytes: 491_400_064, license: 'Apache-2.0' };
const FALLBACK = { label: 'reposhapley-small.gguf', fallback: true };

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
    [running({ state: 'ready', message: 'ready', model: FALLBACK, pullable: PULLABLE }), 'RepoShapley: ready (fallback model)', COMMANDS.downloadModel],
    [running({ state: 'ready', message: 'ready', model: FALLBACK }), 'RepoShapley: ready (fallback model)', COMMANDS.showLog],
    [running({ state: 'ready', message: 'ready', model: { label: 'qwen2.5-coder-0.5b', fallback: false } }), 'RepoShapley: ready', COMMANDS.showTrace],
    [running({ state: 'no-model', message: 'No model.', pullable: PULLABLE }), 'RepoShapley: no model', COMMANDS.downloadModel],
    [running({ state: 'no-model', message: 'The model server http://gpu:8080 is not answering.', modelServer: 'http://gpu:8080' }),
      'RepoShapley: model server not answering', COMMANDS.showLog],
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

test('the fallback model shows in the text and the tooltip says how to download the model asked for', () => {
  const view = presentStatus(running({ state: 'ready', message: 'ready', model: FALLBACK, pullable: PULLABLE }, { lastLatencyMs: 40 }));
  expect(view.text).toBe('$(check) RepoShapley (fallback model) 40 ms');
  expect(view.tooltip).toBe(
    'RepoShapley: ready, on the small fallback model (reposhapley-small.gguf) because qwen2.5-coder-0.5b is not downloaded yet. ' +
    'Click (or run "RepoShapley: Download Model") to download it (491 MB, Apache-2.0).',
  );
});

test('on the fallback because the model asked for failed, the tooltip says it may have crashed and points at the log', () => {
  const view = presentStatus(running({ state: 'ready', message: 'ready', model: FALLBACK }));
  expect(view.tooltip).toContain('could not be loaded, or its process stopped (llama.cpp aborted on it)');
  expect(view.command).toBe(COMMANDS.showLog);
});

test('every command the status bar runs is contributed in package.json', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { contributes: { commands: { command: string }[] } };
  const contributed = manifest.contributes.commands.map((entry) => entry.command);
  for (const command of Object.values(COMMANDS)) expect(contributed, command).toContain(command);
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

test('a completion that waited for another window\'s says how long; the next one that did not, says nothing', () => {
  let status: ClientStatus = running({ state: 'ready', message: 'ready' });
  status = withServerStatus(status, { state: 'ready', message: 'ready', lastLatencyMs: 2_400, lastSharedWaitMs: 1_300 });
  expect(presentStatus(status).tooltip).toContain('last completion 2400 ms, 1300 ms of it waiting for another window\'s completion');
  status = withServerStatus(status, { state: 'ready', message: 'ready', lastLatencyMs: 900 });
  expect(presentStatus(status).tooltip).toContain('last completion 900 ms.');
  status = withServerStatus(status, { state: 'indexing', message: 'indexing' });
  expect(status.lastLatencyMs).toBe(900);
});
