/**
 * Whether a llama-server applies the LoRA adapter a local server would load with the same file.
 * The client cannot hand a model server an adapter: llama-server applies what it was started with
 * (`--lora FILE`). The pack's adapter is most of what the pack is worth (the F2 adapter: +12 to
 * +17 EM on the dev bench), so a server started without it is worth a warning, once, with the fix.
 */
import path from 'node:path';
import { adapterPackFile, adapterPackManifest } from '../../modelStore/adapterPack.js';
import { MODEL_CATALOG } from '../../modelStore/catalog.js';
import { controlPacksDir, type ControlPack } from '../../modelStore/controlPack.js';

/** One entry of llama-server's `GET /lora-adapters`. */
export interface LoraAdapterAnswer {
  id?: number;
  path?: string;
  scale?: number;
}

/**
 * The adapter a local server applies to the file llama-server reports: its control pack's (the
 * derived file), else its catalog model's adapter pack (a base file). Undefined for other files.
 */
export function packAdapterFor(fileName: string, controlPack: ControlPack | undefined): string | undefined {
  if (controlPack?.adapter) return path.join(controlPacksDir(), controlPack.base.model, controlPack.adapter.file);
  const entry = MODEL_CATALOG.find((model) => model.fileName === fileName);
  const pack = entry && adapterPackManifest(entry.name);
  return entry && pack ? adapterPackFile(entry.name, pack) : undefined;
}

/**
 * What to tell the user about the adapters the server applies (`answer`: its `/lora-adapters`, or
 * the error asking for it), given the adapter a local server would apply; undefined when all is well.
 */
export function adapterWarning(fileName: string, expected: string | undefined, answer: LoraAdapterAnswer[] | Error): string | undefined {
  if (!expected) return undefined;
  const fix = `start llama-server with --lora ${expected} (a copy of that file on the server's machine)`;
  if (answer instanceof Error) {
    return `could not ask which LoRA adapters it applies (GET /lora-adapters: ${answer.message}); a local server applies ` +
      `${path.basename(expected)} to ${fileName}: if it is not applied there, ${fix}`;
  }
  if (applied(answer).length > 0) return undefined;
  return `${fileName} is served without a LoRA adapter, but a local server applies the pack's ${path.basename(expected)} to it ` +
    `(worth 12–17 EM points on the dev bench): ${fix}`;
}

/** The adapters a server applies, for the log: `adapter.gguf (scale 1)`. */
export function describeAdapters(answer: LoraAdapterAnswer[] | Error): string {
  if (answer instanceof Error) return 'LoRA adapters unknown';
  const active = applied(answer);
  return active.length === 0 ? 'no LoRA adapter' : `LoRA ${active.map((a) => `${path.basename(a.path ?? '?')} (scale ${a.scale})`).join(', ')}`;
}

function applied(answer: LoraAdapterAnswer[]): LoraAdapterAnswer[] {
  return Array.isArray(answer) ? answer.filter((adapter) => typeof adapter.scale === 'number' && adapter.scale !== 0) : [];
}
