/**
 * The progress port of a pull: byte counts of one phase at a time (download, assembly, hashing).
 * The CLI draws a bar (cli/transferProgress.ts); the server and tests pass nothing or a recorder.
 */

/** Receives the progress of a pull, one phase at a time. */
export interface TransferProgress {
  /** A phase begins: `label` (e.g. "download (pypi)"), its expected total in bytes. */
  start(label: string, totalBytes: number): void;
  /** Bytes done so far in the current phase. */
  update(doneBytes: number): void;
  /** The current phase ends (after success or failure). */
  stop(): void;
  /** A line of information between phases (which source is tried, why one failed). */
  note(line: string): void;
}

/** Reports nothing. */
export const silentProgress: TransferProgress = { start() {}, update() {}, stop() {}, note() {} };
