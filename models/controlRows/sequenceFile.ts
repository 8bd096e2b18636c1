/**
 * sequences.jsonl, the fine-tune's input (models/train/control_finetune.py): one instance per line,
 * its label fields beside its token sequences (instanceSequences.ts). Written by extractFeatures
 * (labeled instances) and taskSequences (bench-style tasks of training repositories), appended as
 * each instance is made, so a stopped run resumes where it was.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { InstanceSequences } from './instanceSequences.js';

/** Appends instances to DIR/sequences.jsonl; knows which ids are there and cuts a torn last line on open. */
export class SequenceWriter {
  private constructor(private readonly file: string, readonly done: Set<string>) {}

  static async open(dir: string): Promise<SequenceWriter> {
    const file = path.join(dir, 'sequences.jsonl');
    const lines = existsSync(file) ? (await readFile(file, 'utf8')).split('\n') : [];
    const whole = lines.flatMap((line) => { try { return line ? [{ line, id: (JSON.parse(line) as { id: string }).id }] : []; } catch { return []; } });
    // Rewrite without a torn last line.
    await writeFile(file, whole.map(({ line }) => `${line}\n`).join(''));
    return new SequenceWriter(file, new Set(whole.map((r) => r.id)));
  }

  async add(sequences: InstanceSequences): Promise<void> {
    const { fields, ...tokens } = sequences;
    await appendFile(this.file, `${JSON.stringify({ ...fields, ...tokens })}\n`);
    this.done.add(fields.id);
  }
}
