/**
 * Random document traffic: buffers of random bytes opened as Python files, incremental edits
 * with out-of-range, reversed, overlapping and surrogate-splitting ranges, and random bytes
 * written to disk as workspace .py files (announced with didChangeWatchedFiles).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Random } from '../random.js';
import { notification, type CaseGenerator } from './fuzzCase.js';
import { oddNumber } from './jsonValues.js';

/** Text for a Python buffer or file: random bytes decoded, random text, or pathological Python. */
export function pythonishText(random: Random): string {
  return random.weighted<() => string>([
    [4, () => random.text(random.int(2_000))],
    [3, () => random.bytes(random.int(2_000)).toString('utf8')],
    [2, () => random.bytes(random.int(2_000)).toString('latin1')],
    [1, () => '('.repeat(random.between(100, 20_000))],
    [1, () => Array.from({ length: random.between(10, 400) }, (_, i) => `${' '.repeat(i)}if x${i}:`).join('\n')],
    [1, () => `def f(${'a, '.repeat(random.int(3_000))}):\n    return """${random.text(200)}`],
    [1, () => `class C:\n${'    def m(self): pass\n'.repeat(random.int(500))}`],
    [1, () => 'x = 1\n'.repeat(random.int(5_000))],
    [1, () => `import ${'a.'.repeat(random.int(300))}b\nfrom . import ${'c, '.repeat(random.int(200))}d`],
  ])();
}

/** didOpen of a pool document with Python-ish random content. */
export const openRandomBuffer: CaseGenerator = (context) => {
  const { random } = context;
  const uri = random.pick(context.documentUris);
  const text = pythonishText(random);
  context.documentLines.set(uri, text.split('\n').length);
  return {
    kind: 'documents/open-random',
    bytes: notification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: random.int(100), text } }),
    requestIds: [],
  };
};

/** A position in or near a document of `lines` lines, sometimes far outside or not a number at all. */
function editPosition(random: Random, lines: number): { line: number; character: number } {
  return random.weighted<() => { line: number; character: number }>([
    [6, () => ({ line: random.int(lines + 1), character: random.int(80) })],
    [2, () => ({ line: lines + random.int(1_000), character: random.int(10_000) })],
    [1, () => ({ line: oddNumber(random), character: oddNumber(random) })],
    [1, () => ({ line: random.int(lines), character: 2 ** 31 })],
  ])();
}

/** One content change: a ranged edit (possibly reversed or out of range) or a full replacement. */
function contentChange(random: Random, lines: number): unknown {
  const text = random.weighted<() => string>([
    [6, () => random.text(random.int(6))],
    [2, () => random.text(random.int(200))],
    [1, () => ''],
    [0.2, () => random.text(random.between(10_000, 100_000))],
  ])();
  if (random.chance(0.05)) return { text };
  const start = editPosition(random, lines);
  const end = random.chance(0.3) ? start : editPosition(random, lines);
  const change: Record<string, unknown> = { range: { start, end }, text };
  if (random.chance(0.1)) change.rangeLength = oddNumber(random);
  return change;
}

/** didChange with one to six changes whose ranges may overlap, run backwards or leave the document. */
export const randomEdits: CaseGenerator = (context) => {
  const { random } = context;
  const uri = random.pick(context.documentUris);
  const lines = context.documentLines.get(uri) ?? 10;
  const changes = Array.from({ length: random.between(1, 6) }, () => contentChange(random, lines));
  return {
    kind: 'documents/edit',
    bytes: notification('textDocument/didChange', { textDocument: { uri, version: oddNumber(random) }, contentChanges: changes }),
    requestIds: [],
  };
};

/** Random bytes written to a workspace .py file (or the file deleted), then the watcher event. */
export const randomDiskFile: CaseGenerator = (context) => {
  const { random, workspace } = context;
  const name = random.pick(['a.py', 'b.py', 'pkg/__init__.py', 'pkg/mod.py', 'pkg/sub/deep.py', 'bin.py', 'big.py', 'gone.py']);
  const file = path.join(workspace, 'disk', name);
  let type = random.pick([1, 2]);
  let content: Buffer | undefined;
  if (random.chance(0.2)) {
    type = 3;
  } else {
    content = random.weighted<() => Buffer>([
      [3, () => random.bytes(random.int(4_000))],
      [3, () => Buffer.from(pythonishText(random), 'utf8')],
      [0.3, () => random.bytes(random.between(1, 2) * 1024 * 1024)],
    ])();
  }
  const disk = { path: file, base64: content?.toString('base64') };
  applyDiskEffect(disk);
  return {
    kind: 'documents/disk-file',
    bytes: notification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(file).href, type }] }),
    requestIds: [],
    disk,
  };
};

/** Writes (or deletes) the file a disk case describes. */
export function applyDiskEffect(disk: { path: string; base64?: string }): void {
  mkdirSync(path.dirname(disk.path), { recursive: true });
  if (disk.base64 === undefined) rmSync(disk.path, { force: true });
  else writeFileSync(disk.path, Buffer.from(disk.base64, 'base64'));
}
