import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { gzipSync } from 'node:zlib';
import { readLabelFolder } from './labelRecord.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'labels-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('reads the records of every shard file, skipping torn lines and other files', async () => {
  await writeFile(path.join(dir, 'labels.shard-0-of-1.jsonl'), '{"id":"a"}\n{"id":"b"}\n');
  // A second machine's shard, killed while writing its last line.
  await writeFile(path.join(dir, 'labels.shard-1-of-2.jsonl'), '{"id":"c"}\n{"id":"d","delt');
  await writeFile(path.join(dir, 'notes.txt'), '{"id":"not a label"}\n');
  const ids = (await readLabelFolder(dir)).map((record) => record.id);
  expect(ids).toEqual(['a', 'b', 'c']);
});

test('an empty folder has no records', async () => {
  expect(await readLabelFolder(dir)).toEqual([]);
});

test('compressed label files (committed with a control pack) are read too; a missing folder has none', async () => {
  await writeFile(path.join(dir, 'qwen.shard-0-of-1.jsonl.gz'), gzipSync('{"id":"z"}\n{"id":"y"}\n'));
  await writeFile(path.join(dir, 'a.jsonl'), '{"id":"a"}\n');
  expect((await readLabelFolder(dir)).map((record) => record.id)).toEqual(['a', 'z', 'y']);
  expect(await readLabelFolder(path.join(dir, 'missing'))).toEqual([]);
});
