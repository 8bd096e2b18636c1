/**
 * An adapter pack: a LoRA adapter trained here for a catalog model that has no control pack
 * (controlPack.ts), applied to the verified base file as it is: no derived file, no control
 * tokens, so `auto` runs `full` on it. The 1.5B's generation adapter ships this way
 * (docs/training.md, "An adapter for the 1.5B").
 *
 *   models/adapters/<catalog name>/adapter.json   the base's and the adapter's hashes, provenance
 *   models/adapters/<catalog name>/adapter.gguf   the LoRA (llama.cpp's format, models/train/lora_gguf.py)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../util/packageRoot.js';
import { sha256 } from './controlPack.js';

export const ADAPTER_PACK_FORMAT = 'reposhapley-adapter-pack/1';

export interface AdapterPack {
  format: typeof ADAPTER_PACK_FORMAT;
  /** The catalog entry the adapter was trained on, and the exact file. */
  base: { model: string; sha256: string; sizeBytes: number };
  /** The LoRA GGUF in the pack folder. */
  adapter: { file: string; sha256: string };
  /** Free-form provenance: the training run, its command, the bench that adopted it (docs only). */
  provenance?: Record<string, unknown>;
}

/** Where the adapter packs live (beside the control packs, so a packaged server carries them). */
export function adapterPacksDir(): string {
  return path.join(packageRoot(), 'models', 'adapters');
}

/**
 * Only adapter.json of catalog model `name` (nothing hashed): what choosing a model needs.
 * Undefined when there is none, or a broken one (`model pull` reports that).
 */
export function adapterPackManifest(name: string, dir = adapterPacksDir()): AdapterPack | undefined {
  try {
    return readAdapterPack(name, dir);
  } catch {
    return undefined;
  }
}

/**
 * The pack of catalog model `name` with its adapter's hash checked, or undefined when the
 * repository has none. Throws an Error naming the file and the problem when one exists but is broken.
 */
export function verifiedAdapterPack(name: string, dir = adapterPacksDir()): { pack: AdapterPack; adapterPath: string } | undefined {
  const pack = readAdapterPack(name, dir);
  if (!pack) return undefined;
  const adapterPath = path.join(dir, name, pack.adapter.file);
  if (!existsSync(adapterPath)) throw new Error(`${adapterPath} is missing; the adapter pack is incomplete`);
  if (sha256(readFileSync(adapterPath)) !== pack.adapter.sha256) throw new Error(`${adapterPath}: its SHA-256 is not the one adapter.json pins; the pack is damaged or half-updated`);
  return { pack, adapterPath };
}

/** The adapter file of a pack, where the server loads it from. */
export function adapterPackFile(name: string, pack: AdapterPack, dir = adapterPacksDir()): string {
  return path.join(dir, name, pack.adapter.file);
}

function readAdapterPack(name: string, dir: string): AdapterPack | undefined {
  const file = path.join(dir, name, 'adapter.json');
  if (!existsSync(file)) return undefined;
  const pack = JSON.parse(readFileSync(file, 'utf8')) as AdapterPack;
  const problem = adapterPackProblem(pack, name);
  if (problem) throw new Error(`${file}: ${problem}`);
  return pack;
}

export function adapterPackProblem(pack: AdapterPack, name: string): string | undefined {
  if (pack.format !== ADAPTER_PACK_FORMAT) return `format ${JSON.stringify(pack.format)}, expected ${ADAPTER_PACK_FORMAT}`;
  if (pack.base?.model !== name) return `base.model ${JSON.stringify(pack.base?.model)} is not the folder's catalog model ${name}`;
  if (!/^[0-9a-f]{64}$/.test(pack.base.sha256 ?? '')) return 'base.sha256 is not a SHA-256';
  const adapter = pack.adapter;
  if (!(typeof adapter?.file === 'string' && path.basename(adapter.file) === adapter.file && /^[0-9a-f]{64}$/.test(adapter.sha256 ?? ''))) {
    return 'adapter needs a file name in the pack folder and its SHA-256';
  }
  return undefined;
}
