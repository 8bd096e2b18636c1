/**
 * What the server process did, from outside it: `strace -f` of the files it opened, the programs
 * it executed and the sockets it made, and file access times as a second witness that works
 * without strace (atime set in the past moves on the next read, on relatime and strictatime mounts).
 */
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';

/** The strace command line that records to `logFile`, or undefined when strace is missing or ptrace is denied. */
export function straceWrapper(logFile: string): string[] | undefined {
  if (!existsSync('/usr/bin/strace')) return undefined;
  return ['/usr/bin/strace', '-f', '-qq', '-s', '4096', '-e', 'trace=open,openat,openat2,execve,socket,connect', '-o', logFile];
}

/** The calls in an strace log. */
export interface Syscalls {
  /** Paths passed to open/openat/openat2, successful or not. */
  opened: string[];
  /** execve calls: the program and its arguments, as strace printed them. */
  executed: string[];
  /** Address families of socket() calls (AF_UNIX, AF_INET, ...). */
  socketFamilies: string[];
  /** connect() calls, as strace printed them. */
  connects: string[];
}

/** Parses an strace log written with {@link straceWrapper}. */
export function readStraceLog(logFile: string): Syscalls {
  const result: Syscalls = { opened: [], executed: [], socketFamilies: [], connects: [] };
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const call = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (!call) continue;
    const [, name, rest] = call as unknown as [string, string, string];
    const quoted = /"((?:[^"\\]|\\.)*)"/.exec(rest)?.[1];
    if (name.startsWith('open') && quoted !== undefined) result.opened.push(quoted);
    else if (name === 'execve') result.executed.push(rest.slice(0, 1000));
    else if (name === 'socket') result.socketFamilies.push(/^(AF_\w+|PF_\w+)/.exec(rest)?.[1] ?? rest.slice(0, 20));
    else if (name === 'connect') result.connects.push(rest.slice(0, 200));
  }
  return result;
}

/** A date in the past for atime: any read moves it (relatime updates an atime older than mtime). */
const OLD_ATIME = new Date('2001-01-01T00:00:00Z');

/** Sets `file`'s atime far in the past, keeping its mtime. */
export function markUnread(file: string): void {
  utimesSync(file, OLD_ATIME, statSync(file).mtime);
}

/** Whether `file` was read since {@link markUnread}. */
export function wasRead(file: string): boolean {
  return statSync(file).atimeMs > OLD_ATIME.getTime() + 1000;
}

/** Whether this file system records reads in atime (false on noatime mounts): checked on a scratch file. */
export function atimeWorks(scratchFile: string): boolean {
  markUnread(scratchFile);
  readFileSync(scratchFile);
  return wasRead(scratchFile);
}
