/**
 * Random document traffic in every language the server reads: buffers of random bytes and
 * pathological source opened under each language's ids, incremental edits with out-of-range,
 * reversed, overlapping and surrogate-splitting ranges, and such text written to disk as
 * workspace files (announced with didChangeWatchedFiles).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EDITOR_LANGUAGES, LANGUAGE_IDS, languageOfFileName } from '../../../shared/languages.js';
import type { Random } from '../random.js';
import { notification, type CaseGenerator } from './fuzzCase.js';
import { oddNumber } from './jsonValues.js';
import { PROJECT_FILE_NAMES, projectFileText, sourceText } from './sourceTexts.js';

/** Text for a buffer or file at `file`: a project file's, its language's, or any language's when the name says none. */
export function textFor(random: Random, file: string): string {
  const name = path.basename(file);
  if (PROJECT_FILE_NAMES.includes(name)) return projectFileText(random, name);
  return sourceText(random, languageOfFileName(file) ?? random.pick(LANGUAGE_IDS));
}

/** An LSP languageId for a document at `uri`: its language's, now and then another or none the server knows. */
function languageIdFor(random: Random, uri: string): string {
  const language = EDITOR_LANGUAGES.find((entry) => entry.id === languageOfFileName(uri));
  if (language && random.chance(0.8)) return random.pick(language.editorIds);
  return random.pick([...EDITOR_LANGUAGES.flatMap((entry) => entry.editorIds), 'plaintext', '']);
}

/** didOpen of a pool document with source-like random content. */
export const openRandomBuffer: CaseGenerator = (context) => {
  const { random } = context;
  const uri = random.pick(context.documentUris);
  const text = textFor(random, uri);
  context.documentLines.set(uri, text.split('\n').length);
  return {
    kind: `documents/open-random/${languageOfFileName(uri) ?? 'other'}`,
    bytes: notification('textDocument/didOpen', { textDocument: { uri, languageId: languageIdFor(random, uri), version: random.int(100), text } }),
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

/** Workspace source files the disk cases write, in every language, with the names its rules look for. */
const SOURCE_NAMES = [
  'a.py', 'pkg/__init__.py', 'pkg/sub/deep.py', 'gone.py',
  'web/index.js', 'web/lib.mjs', 'web/package.json.js', 'app/main.ts', 'app/types.d.ts', 'app/view.tsx',
  'go/main.go', 'go/pkg/util.go', 'src/lib.rs', 'src/net/mod.rs', 'src/net/tcp.rs',
];

/** Project files import resolution reads, at the root and below: each change re-resolves every import. */
const PROJECT_NAMES = [...PROJECT_FILE_NAMES, ...PROJECT_FILE_NAMES.map((name) => `app/${name}`), 'go/go.mod', 'web/package.json'];

/** Random bytes, source-like text or a project file's shapes written to a workspace file (or the file deleted), then the watcher event. */
export const randomDiskFile: CaseGenerator = (context) => {
  const { random, workspace } = context;
  const project = random.chance(0.3);
  const name = random.pick(project ? PROJECT_NAMES : SOURCE_NAMES);
  const file = path.join(workspace, 'disk', name);
  let type = random.pick([1, 2]);
  let content: Buffer | undefined;
  if (random.chance(0.2)) {
    type = 3;
  } else {
    content = random.weighted<() => Buffer>([
      [3, () => random.bytes(random.int(4_000))],
      [3, () => Buffer.from(textFor(random, name), 'utf8')],
      [0.3, () => random.bytes(random.between(1, 2) * 1024 * 1024)],
    ])();
  }
  const disk = { path: file, base64: content?.toString('base64') };
  applyDiskEffect(disk);
  return {
    kind: `documents/disk-file/${project ? 'project' : languageOfFileName(name) ?? 'other'}`,
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
