import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { DEFAULT_MODEL_NAME, MODEL_CATALOG } from '../../../server/src/modelStore/catalog.js';
import { writeVerifiedMark } from '../../../server/src/modelStore/sidecar.js';
import { servedFiles } from './servedFiles.js';

let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'reposhapley-served-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
// Hermetic: no bundled model and no control pack unless a test gives one.
const noExtras = { env: {}, bundled: () => undefined, controlPack: () => undefined };

function file(name: string, content: string): string {
  const target = path.join(dir, name);
  writeFileSync(target, content);
  return target;
}

test('a model path and an adapter are named by the SHA-256 of their bytes', async () => {
  const model = file('m.gguf', 'model bytes');
  const adapter = file('a.gguf', 'adapter bytes');
  expect(await servedFiles({ modelPath: model, adapterPath: adapter }, noExtras))
    .toEqual({ modelSha256: sha256('model bytes'), adapterSha256: sha256('adapter bytes') });
  expect(await servedFiles({ modelPath: model }, noExtras)).toEqual({ modelSha256: sha256('model bytes') });
});

test('the pulled default and the same file named by path get one identity', async () => {
  const entry = MODEL_CATALOG.find((candidate) => candidate.name === DEFAULT_MODEL_NAME)!;
  const pulled = file(entry.fileName, 'stands in for the pulled model');
  await writeVerifiedMark(pulled, entry.sha256);
  const byDefault = await servedFiles({ modelCacheDir: dir }, noExtras);
  // A verified cache file is named by its mark (the hash it was checked against), not read again.
  expect(byDefault).toEqual({ modelSha256: entry.sha256 });
  expect(await servedFiles({ modelPath: pulled }, noExtras)).toEqual(byDefault);
  // Changed since its check: the mark no longer describes it, so its bytes are hashed.
  writeFileSync(pulled, 'changed');
  expect(await servedFiles({ modelPath: pulled }, noExtras)).toEqual({ modelSha256: sha256('changed') });
});

test('the bundled fallback serves when nothing is pulled, and never with the adapter setting', async () => {
  const bundled = file('small.gguf', 'small model');
  const adapter = file('a.gguf', 'adapter bytes');
  expect(await servedFiles({ modelCacheDir: dir, adapterPath: adapter }, { ...noExtras, bundled: () => bundled }))
    .toEqual({ modelSha256: sha256('small model') });
});

test('a model server or no model at all leaves the run named by its flags', async () => {
  expect(await servedFiles({ modelServer: 'http://127.0.0.1:8080' }, noExtras)).toBeUndefined();
  expect(await servedFiles({ modelCacheDir: dir }, noExtras)).toBeUndefined();
});
