/**
 * What a fuzz case is and what generators share. A case is bytes for the server's stdin plus
 * the ids of the requests in it that a correct server must answer (result or error).
 */
import type { Random } from '../random.js';
import type { RequestId } from '../rawLspClient.js';

/** One fuzz case. */
export interface FuzzCase {
  /** Family/kind, for the statistics (e.g. `frame/bad-length`, `params/didChange`). */
  kind: string;
  bytes: Buffer;
  /** Ids of well-formed requests in `bytes`: each must get exactly one response. */
  requestIds: RequestId[];
  /** A file the case wrote (content in base64) or deleted (no content) before its bytes, for replays. */
  disk?: { path: string; base64?: string };
}

/** The fuzz run's shared state that generators read and update. */
export interface FuzzContext {
  random: Random;
  /** The temporary workspace root. */
  workspace: string;
  /** URIs of documents the generators may open, edit and close (the probe document is not among them). */
  documentUris: string[];
  /** Approximate line counts of the documents opened by the generators (for plausible ranges). */
  documentLines: Map<string, number>;
  /** A model file that loads, for settings cases. */
  modelPath: string;
  /** The next request id for fuzz requests (disjoint from the client's own small ids). */
  nextId(): RequestId;
}

/** A generator of one family. */
export type CaseGenerator = (context: FuzzContext) => FuzzCase;

/** `Content-Length` framing of a body. */
export function framed(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

/** A framed JSON-RPC notification. */
export function notification(method: string, params: unknown): Buffer {
  return framed(JSON.stringify({ jsonrpc: '2.0', method, params }));
}

/** A framed JSON-RPC request with a fresh id, and that id. */
export function request(context: FuzzContext, method: string, params: unknown): { bytes: Buffer; id: RequestId } {
  const id = context.nextId();
  return { bytes: framed(JSON.stringify({ jsonrpc: '2.0', id, method, params })), id };
}
