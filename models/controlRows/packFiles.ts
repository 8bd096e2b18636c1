/**
 * Writing a control pack (server/src/modelStore/controlPack.ts describes the format): the rows
 * file, the derived model made from the verified base with it, and pack.json pinning both.
 * The derived file lands in the model cache, marked verified, so the server uses it at once.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHUNK_CLOSE_TOKENS, CHUNK_OPEN_TOKENS, CONTROL_TOKENS } from '../../server/src/model/specialTokens.js';
import { resolveCacheDir } from '../../server/src/modelStore/cacheDir.js';
import { deriveControlModel } from '../../server/src/modelStore/controlDerive.js';
import { kvString, readGgufHeader } from '../../server/src/model/gguf/ggufReader.js';
import { encodeRows, sha256, type ControlPack, type LoadedControlPack } from '../../server/src/modelStore/controlPack.js';
import { writeVerifiedMark } from '../../server/src/modelStore/sidecar.js';

export type PackRows = [Float32Array, Float32Array][];

/** The pack's tokens, in table order: the five decisions, then `<C_i>`, `</C_i>` interleaved. */
export const PACK_TOKEN_TEXTS: readonly string[] = [
  ...CONTROL_TOKENS, ...CHUNK_OPEN_TOKENS.flatMap((open, i) => [open, CHUNK_CLOSE_TOKENS[i]!]),
];

/** Writes `pack` (its rows and derived pins filled in here) to `packDir`; returns the derived model's path. */
export async function writePack(
  packDir: string, pack: Omit<ControlPack, 'rows' | 'derived'> & { derivedFileName: string }, rows: PackRows, basePath: string, cacheDir?: string,
): Promise<{ derivedPath: string; pack: ControlPack }> {
  await mkdir(packDir, { recursive: true });
  const bytes = encodeRows(rows);
  await writeFile(path.join(packDir, 'rows.f32'), bytes);
  const { derivedFileName, ...rest } = pack;
  const draft: ControlPack = {
    ...rest, rows: { file: 'rows.f32', sha256: sha256(bytes) }, derived: { fileName: derivedFileName, sha256: '', sizeBytes: 0 },
  };
  const derivedPath = path.join(resolveCacheDir({ cacheDir }), derivedFileName);
  await mkdir(path.dirname(derivedPath), { recursive: true });
  const loaded: LoadedControlPack = { dir: packDir, pack: draft, rows };
  const made = await deriveControlModel(basePath, derivedPath, loaded, { pin: false });
  if (made.kind !== 'ok') throw new Error(made.message);
  const final: ControlPack = { ...draft, derived: { fileName: derivedFileName, sha256: made.sha256, sizeBytes: made.sizeBytes } };
  await writeFile(path.join(packDir, 'pack.json'), `${JSON.stringify(final, null, 2)}\n`);
  await writeVerifiedMark(derivedPath, made.sha256);
  return { derivedPath, pack: final };
}

/** Copies a LoRA adapter GGUF into a pack folder as adapter.gguf and pins it; refuses a file that is not one. */
export async function copyAdapter(file: string, packDir: string): Promise<{ file: string; sha256: string }> {
  const read = await readGgufHeader(file);
  if (read.kind !== 'ok') throw new Error(read.message);
  if (kvString(read.header, 'general.type') !== 'adapter') throw new Error(`${file} is not a LoRA adapter GGUF (general.type "adapter")`);
  const bytes = await readFile(file);
  await writeFile(path.join(packDir, 'adapter.gguf'), bytes);
  return { file: 'adapter.gguf', sha256: sha256(bytes) };
}

/** What a variant changes in the pack it copies. */
export interface PackVariant {
  rows: PackRows;
  needThreshold: number;
  trained: boolean;
  /** A LoRA adapter GGUF to copy into the variant and pin; the committed pack's is not carried over. */
  adapterFile?: string;
  provenance?: Record<string, unknown>;
}

/**
 * The pack `committed` with other rows (and adapter) written to `outDir`, its derived model
 * beside it: an ablation or a candidate training is benched from there
 * (`bench --model OUT/<derived> --adapter OUT/adapter.gguf`) while the committed pack, and the
 * derived model in the cache that the server uses, stay as they are. Nothing is written when
 * `outDir` is the committed pack's folder.
 */
export async function writePackVariant(
  committed: LoadedControlPack, outDir: string, basePath: string, variant: PackVariant,
): Promise<{ derivedPath: string; pack: ControlPack }> {
  if (path.resolve(outDir) === path.resolve(committed.dir)) {
    throw new Error(`a variant goes beside the pack, not over it (${committed.dir}): use packTool update for that`);
  }
  await mkdir(outDir, { recursive: true });
  const adapter = variant.adapterFile ? await copyAdapter(variant.adapterFile, outDir) : undefined;
  const { derived, rows: _rows, adapter: _adapter, ...rest } = committed.pack;
  return writePack(outDir, {
    ...rest, trained: variant.trained, needThreshold: variant.needThreshold, provenance: variant.provenance ?? committed.pack.provenance,
    derivedFileName: derived.fileName, ...(adapter ? { adapter } : {}),
  }, variant.rows, basePath, outDir);
}
