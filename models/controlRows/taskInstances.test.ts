/**
 * taskSequences' instances are what the server sends: on the Rust fixture, each bench-style task's
 * no-retrieval prompt is the pipeline's `none` prompt, its evidence the `full` prompt, then Y and
 * the end token. And no benchmark package, nor a validation package for training, is ever read.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_SETTINGS } from '../../shared/settings.js';
import { parsePackageList } from '../../bench/src/debianPackages.js';
import { buildTasks } from '../../bench/src/tasks/buildTasks.js';
import { chooseLayout } from '../../server/src/prompt/layouts.js';
import { inferencePrompt, loadTestVocabulary, recordingModel, type TestVocabulary } from '../../test/support/recordingPipeline.js';
import { openRepository } from '../data/repositoryTools.js';
import { refuseHeldOutPackages, TASK_PACKAGE_LISTS_DIR, taskSequences } from './taskInstances.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'bench-rust');
const CONTEXT = 2048;

let vocabulary: TestVocabulary;

beforeAll(async () => {
  vocabulary = await loadTestVocabulary();
});

afterAll(async () => {
  await vocabulary?.dispose();
});

describe('taskSequences', () => {
  test('Rust line and API tasks: the none and full prompts the pipeline sends, then Y and the end token', async () => {
    const { tasks } = await buildTasks([{ name: 'shop', root: ROOT, language: 'rust' }], { types: ['api', 'line'], limit: 6, seed: 1, perFileCap: 3 });
    expect(tasks.filter((t) => t.type === 'api').length).toBeGreaterThan(0);
    const model = recordingModel(vocabulary, CONTEXT, 0);
    const prompt = { contextSize: CONTEXT, settings: DEFAULT_SETTINGS, special: vocabulary.special, echoLines: 0, layout: chooseLayout(model.info) };
    const repo = await openRepository(ROOT, DEFAULT_SETTINGS, vocabulary.tokenizer());
    let withEvidence = 0;
    let withEvidenceOnly = 0;
    try {
      for (const task of tasks) {
        const built = (await taskSequences(task, `rust:${task.id}`, 'train', repo, { model, prompt }))!;
        expect(built, task.id).toBeDefined();
        const site = { relPath: task.relPath, line: task.cursor.line, character: task.cursor.character, start: task.prefix.length, end: task.prefix.length + task.target.length };
        const fileText = task.prefix + task.target + task.suffix;
        const options = { contextSize: CONTEXT, echoLines: 0 };
        expect([...built.trigger, ...built.generation], task.id).toEqual(await inferencePrompt(vocabulary, ROOT, site, fileText, 'none', options));
        if (built.evidence) {
          withEvidence++;
          expect(built.evidence, task.id).toEqual(await inferencePrompt(vocabulary, ROOT, site, fileText, 'full', options));
        }
        expect(vocabulary.vocab.detokenize(built.y, true)).toBe(task.target);
        expect(built.end).toBe(vocabulary.special.endOfText);
        expect(built.fields).toMatchObject({ id: `rust:${task.id}`, split: 'train', kind: task.type, repository: 'shop' });
        expectEvidenceOnly(built.fields.evidenceOnly!, built, task.id);
        withEvidenceOnly += built.fields.evidenceOnly!.length > 0 ? 1 : 0;
      }
    } finally {
      repo.dispose();
    }
    // The fixture's API calls resolve to other files, whose definitions retrieval packs.
    expect(withEvidence).toBeGreaterThan(0);
    // Some targets name a definition that only another file's chunk spells out.
    expect(withEvidenceOnly).toBeGreaterThan(0);
  });
});

/** Each evidence-only identifier is a word of Y and of the full prompt, and not of the none prompt. */
function expectEvidenceOnly(identifiers: readonly string[], built: { trigger: number[]; generation: number[]; evidence?: number[]; y: number[] }, id: string): void {
  const text = (ids: readonly number[]) => vocabulary.vocab.detokenize([...ids], true);
  const hasWord = (haystack: string, word: string) => new RegExp(`\\b${word}\\b`).test(haystack);
  if (!built.evidence) expect(identifiers, id).toEqual([]);
  for (const identifier of identifiers) {
    expect(hasWord(text(built.y), identifier), `${id}: ${identifier} in Y`).toBe(true);
    expect(hasWord(text(built.evidence!), identifier), `${id}: ${identifier} in the full prompt`).toBe(true);
    expect(hasWord(text([...built.trigger, ...built.generation]), identifier), `${id}: ${identifier} in the none prompt`).toBe(false);
  }
}

describe('refuseHeldOutPackages', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'held-out-'));
  const list = path.join(dir, 'packages-rust.txt');
  writeFileSync(list, '# a bench list\nlibrust-serde-dev\n');

  test('refuses a benchmark package in either split', () => {
    for (const split of ['train', 'val'] as const) {
      expect(() => refuseHeldOutPackages(['librust-tokio-dev', 'librust-serde-dev'], split, [list])).toThrow(/librust-serde-dev is held out/);
    }
  });

  test('refuses a validation package for training, and takes it for validation', () => {
    expect(() => refuseHeldOutPackages(['python3-paramiko'], 'train', [list])).toThrow(/python3-paramiko is held out/);
    expect(() => refuseHeldOutPackages(['python3-paramiko'], 'val', [list])).not.toThrow();
  });

  test('a package of any committed validation list is refused for training', () => {
    const validation = path.join(dir, 'rust-val.txt');
    writeFileSync(validation, '# validation crates\nlibrust-walkdir-dev\n');
    expect(() => refuseHeldOutPackages(['librust-tokio-dev', 'librust-walkdir-dev'], 'train', [list], [validation])).toThrow(/librust-walkdir-dev is held out/);
    expect(() => refuseHeldOutPackages(['librust-walkdir-dev'], 'val', [list], [validation])).not.toThrow();
    // The real lists, by default: walkdir is in task-packages/rust-val.txt.
    expect(() => refuseHeldOutPackages(['librust-walkdir-dev'], 'train')).toThrow(/librust-walkdir-dev is held out/);
  });

  test('takes every committed list (task-packages/) against the real bench lists; no training list holds a validation package', () => {
    const lists = TASK_PACKAGE_LISTS_DIR;
    const files = readdirSync(lists).filter((f) => f.endsWith('.txt'));
    expect(files.length).toBe(9);
    for (const file of files) {
      const packages = parsePackageList(readFileSync(path.join(lists, file), 'utf8'));
      expect(packages.length, file).toBeGreaterThan(0);
      expect(() => refuseHeldOutPackages(packages, file.endsWith('-val.txt') ? 'val' : 'train'), file).not.toThrow();
    }
  });
});
