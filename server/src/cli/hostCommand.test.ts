import { expect, test } from 'vitest';
import { describeHost, residentMegabytes } from './hostCommand.js';

const HOST = { socket: '/run/h/abc.sock', pid: 123, clients: 2, model: '/models/m.gguf' };

test('a host is described with its model, its servers and, where known, its resident memory', () => {
  expect(describeHost(HOST, 905)).toBe('pid 123: /models/m.gguf, 2 servers connected, 905 MB resident (/run/h/abc.sock)');
  expect(describeHost({ ...HOST, clients: 1, model: undefined }, undefined)).toBe('pid 123: no model loaded yet, 1 server connected (/run/h/abc.sock)');
});

test('resident memory is read from /proc; a process gone or another system gives none', () => {
  expect(residentMegabytes(1, () => 'Name:\tnode\nVmPeak:\t 2000000 kB\nVmRSS:\t  926720 kB\n')).toBe(905);
  expect(residentMegabytes(1, () => { throw new Error('ENOENT'); })).toBeUndefined();
  expect(residentMegabytes(1, () => 'Name:\tnode\n')).toBeUndefined();
  if (process.platform === 'linux') expect(residentMegabytes(process.pid)).toBeGreaterThan(0);
});
