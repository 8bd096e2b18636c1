/**
 * A `Content-Length` framed JSON-RPC reader that survives bad input. vscode-jsonrpc's
 * StreamMessageReader stops reading the current chunk after a bad header, and junk bytes before
 * a header corrupt every later header; then the server hangs while looking alive. This reader
 * reports each bad frame as an error, skips to the next `Content-Length:` header and goes on.
 */
import { AbstractMessageReader, Disposable, type DataCallback, type Message } from 'vscode-languageserver/node';

const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');
const HEADER_NAME = 'content-length:';
/** A header block longer than this is junk, not a header. */
const MAX_HEADER_BYTES = 8 * 1024;

/** Why a frame was skipped. */
class FrameError extends Error {}

/** Reads LSP frames from a byte stream (stdin). */
export class ResilientMessageReader extends AbstractMessageReader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly readable: NodeJS.ReadableStream) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer | string): void => this.onData(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk, callback);
    const onError = (error: Error): void => this.fireError(error);
    const onClose = (): void => this.fireClose();
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.on('end', onClose);
    this.readable.on('close', onClose);
    return Disposable.create(() => {
      this.readable.off('data', onData);
      this.readable.off('error', onError);
      this.readable.off('end', onClose);
      this.readable.off('close', onClose);
    });
  }

  private onData(chunk: Buffer, callback: DataCallback): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const step = this.readFrame();
      if (step === 'need-more') return;
      if (step instanceof FrameError) this.fireError(step);
      else callback(step);
    }
  }

  /** The next message, an error for a skipped frame, or 'need-more' when the frame is incomplete. */
  private readFrame(): Message | FrameError | 'need-more' {
    const headerEnd = this.buffer.indexOf(HEADER_END);
    if (headerEnd < 0) {
      return this.buffer.length > MAX_HEADER_BYTES ? this.skip('no header end', this.buffer.length) : 'need-more';
    }
    const bodyStart = headerEnd + HEADER_END.length;
    const length = contentLength(this.buffer.toString('ascii', 0, headerEnd));
    if (length === undefined) {
      return this.skip(`bad header ${JSON.stringify(this.buffer.toString('ascii', 0, Math.min(headerEnd, 120)))}`, bodyStart);
    }
    if (this.buffer.length < bodyStart + length) return 'need-more';
    const body = this.buffer.toString('utf8', bodyStart, bodyStart + length);
    this.buffer = this.buffer.subarray(bodyStart + length);
    return parseMessage(body);
  }

  /**
   * Drops bytes up to the next `Content-Length:` inside the bad header block (junk glued in front
   * of a real header), else the first `fallback` bytes, and reports why.
   */
  private skip(reason: string, fallback: number): FrameError {
    const next = this.buffer.toString('latin1', 0, fallback).toLowerCase().indexOf(HEADER_NAME, 1);
    this.buffer = this.buffer.subarray(next > 0 ? next : fallback);
    return new FrameError(`skipped a malformed frame (${reason})`);
  }
}

/** The Content-Length of a header block, or undefined when it is missing or not a number. */
function contentLength(headerBlock: string): number | undefined {
  for (const line of headerBlock.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    return /^\d+$/.test(value) ? Number(value) : undefined;
  }
  return undefined;
}

/** A frame body -> a JSON-RPC message object, or an error when it is not one. */
function parseMessage(body: string): Message | FrameError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return new FrameError(`invalid JSON in a frame: ${String(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return new FrameError('a frame that is not a JSON-RPC message object');
  }
  return parsed as Message;
}
