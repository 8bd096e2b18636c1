/** The model file a controlRows CLI's `--model` names: a GGUF path, or a catalog name whose derived file is verified in the cache. */
import { existsSync } from 'node:fs';
import { cachedDerivedModel } from '../../server/src/modelStore/cacheDir.js';

export function resolveDerivedModel(value: string): string {
  if (existsSync(value)) return value;
  const derived = cachedDerivedModel(value);
  if (!derived?.verified) throw new Error(`${value}: no such file, and no verified derived model; run packTool init ${value} (or model pull)`);
  return derived.path;
}
