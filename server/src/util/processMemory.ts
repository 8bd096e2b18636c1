/**
 * A process's resident memory, read from Linux's /proc: what `model hosts` shows, and what the
 * tests and benches that watch a server's and its model host's memory read.
 */
import { readFileSync } from 'node:fs';

/** Resident memory (VmRSS) of process `pid` in KiB; undefined on a system without /proc, or once it has exited. */
export function residentKiB(pid: number, readStatus = (file: string) => readFileSync(file, 'utf8')): number | undefined {
  try {
    const kilobytes = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readStatus(`/proc/${pid}/status`))?.[1];
    return kilobytes === undefined ? undefined : Number(kilobytes);
  } catch {
    return undefined;
  }
}
