/** StatusReporter against a recording connection: model fields, the pull offer, no-model ending. */
import { expect, test } from 'vitest';
import type { Connection } from 'vscode-languageserver/node';
import type { StatusParams } from '../../../shared/messages.js';
import { createMemoryLogger } from '../util/logger.js';
import { StatusReporter } from './status.js';

const PULLABLE = { name: 'qwen2.5-coder-0.5b', sizeBytes: 491_400_064, license: 'Apache-2.0' };

function reporter() {
  const sent: { method: string; params: unknown }[] = [];
  const connection = {
    sendNotification: (type: { method: string }, params: unknown) => {
      sent.push({ method: type.method, params });
      return Promise.resolve();
    },
  } as unknown as Connection;
  const status = new StatusReporter(connection, createMemoryLogger());
  const statuses = () => sent.filter((s) => s.method === 'reposhapley/status').map((s) => s.params as StatusParams);
  const messages = () => sent.filter((s) => s.method === 'window/showMessage').map((s) => (s.params as { message: string }).message);
  return { status, statuses, messages };
}

test('every status carries the latest model status, and a pullable model disappears once pulled', () => {
  const { status, statuses } = reporter();
  status.modelChanged({ model: { label: 'small.gguf', fallback: true }, pullable: PULLABLE });
  status.indexed(3, 'indexed 3 files');
  expect(statuses().at(-1)).toEqual({ state: 'ready', message: 'indexed 3 files', indexedFiles: 3, model: { label: 'small.gguf', fallback: true }, pullable: PULLABLE });
  status.modelChanged({ model: { label: 'qwen2.5-coder-0.5b', fallback: false } });
  expect(statuses().at(-1)).toEqual({ state: 'ready', message: 'indexed 3 files', indexedFiles: 3, model: { label: 'qwen2.5-coder-0.5b', fallback: false } });
});

test('a model that loads after a no-model state makes the status ready', () => {
  const { status, statuses } = reporter();
  status.modelChanged({ pullable: PULLABLE });
  status.notice({ severity: 'error', message: 'No model is available.', status: 'no-model', offersPull: true });
  status.indexed(3, 'indexed 3 files');
  expect(statuses().at(-1)?.state).toBe('no-model');
  status.modelChanged({ model: { label: 'qwen2.5-coder-0.5b', fallback: false } });
  expect(statuses().at(-1)).toEqual({ state: 'ready', message: 'model qwen2.5-coder-0.5b loaded', model: { label: 'qwen2.5-coder-0.5b', fallback: false } });
  status.indexed(3, 'indexed 3 files'); // a later indexing pass no longer reports the old problem
  expect(statuses().at(-1)?.state).toBe('ready');
});

test('a warning whose fix is the download is left to a client that offers it; errors are always shown', () => {
  const warning = { severity: 'warning' as const, message: 'qwen2.5-coder-0.5b is not downloaded yet.', offersPull: true };
  const offering = reporter();
  offering.status.clientOffersPull = true;
  offering.status.notice(warning);
  offering.status.notice({ severity: 'error', message: 'No model is available.', status: 'no-model', offersPull: true });
  expect(offering.messages()).toEqual(['No model is available.']);
  expect(offering.statuses()[0]?.message).toBe(warning.message);

  const plain = reporter();
  plain.status.notice(warning);
  expect(plain.messages()).toEqual([warning.message]);
});
