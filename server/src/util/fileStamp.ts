/**
 * What a file looks like from outside: `absent`, or its size, change time and inode. Two equal
 * stamps mean the file was not replaced or rewritten in between (to the clock's resolution).
 */
import { statSync } from 'node:fs';

export function fileStamp(file: string): string {
  try {
    const stats = statSync(file);
    return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
  } catch {
    return 'absent';
  }
}
