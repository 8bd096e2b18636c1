import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { dropProgressTrailer } from './urlDownload.js';

const dir = mkdtempSync(path.join(tmpdir(), 'url-download-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a progress record left after the data is cut off; a file of the right size, or an unknown total, is left alone', async () => {
  const data = Buffer.from('GGUF and the rest of the model');
  const trailed = path.join(dir, 'trailed.gguf');
  writeFileSync(trailed, Buffer.concat([data, Buffer.from('{"part":0,"done":true}')]));
  await dropProgressTrailer(trailed, data.length);
  expect(readFileSync(trailed)).toEqual(data);

  const whole = path.join(dir, 'whole.gguf');
  writeFileSync(whole, data);
  await dropProgressTrailer(whole, data.length);
  await dropProgressTrailer(whole, 0);
  expect(readFileSync(whole)).toEqual(data);
});
