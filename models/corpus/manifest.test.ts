import { expect, test } from 'vitest';
import { decodeManifest, encodeManifest, type ManifestRow } from './manifest.js';

test('manifest rows survive a round trip; tabs and newlines in details become spaces', () => {
  const rows: ManifestRow[] = [
    { package: 'python3-a', path: 'a/b.py', bytes: 12, sha256: 'f'.repeat(64), status: 'kept', reason: '', detail: '' },
    { package: 'python3-a', path: 'a/c.py', bytes: 3, sha256: '', status: 'skipped', reason: 'too-short', detail: 'x\ty\nz' },
  ];
  const decoded = decodeManifest(encodeManifest(rows));
  expect(decoded[0]).toEqual(rows[0]);
  expect(decoded[1]).toEqual({ ...rows[1], detail: 'x y z' });
});

test('a file that is not a manifest is rejected', async () => {
  const { gzipSync } = await import('node:zlib');
  expect(() => decodeManifest(gzipSync('a\tb\n'))).toThrow(/not a corpus manifest/);
});
