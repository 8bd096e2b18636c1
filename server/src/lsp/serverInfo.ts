/**
 * The server's name and version, read from the package.json above this module (works from the sources
 * under vitest and from dist/ after a build, which sit at different depths).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Package name the version is read from. */
export const PACKAGE_NAME = 'reposhapley';

let cached: string | undefined;

/** The version of the reposhapley package, or '0.0.0' when its package.json cannot be found. */
export function serverVersion(): string {
  cached ??= findVersion(dirname(fileURLToPath(import.meta.url)));
  return cached;
}

function findVersion(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        const parsed = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
        if (parsed.name === PACKAGE_NAME && typeof parsed.version === 'string') return parsed.version;
      } catch {
        // An unreadable package.json on the way up is not ours; keep looking.
      }
    }
    if (dirname(dir) === dir) return '0.0.0';
  }
}
