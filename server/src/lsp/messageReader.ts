/**
 * A `Content-Length` framed JSON-RPC reader that survives bad input. vscode-jsonrpc's
 * StreamMessageReader stops reading the current chunk after a bad header, and junk bytes before
 * a header corrupt every later header; then the server hangs while looking alive. This reader
 * reports each bad frame as an error, skips to the next `Content-Length:` header and goes on.
 * A declared length that runs into the next frame (too long, or a truncated body) is noticed as
 * soon as that frame's header has arrived, so the next message is not swallowed with it.
 */
import { AbstractMessageReader, Disposable, ErrorCodes, type DataCallback, type Message, type ResponseMessage } from 'vscode-languageserver/node';

const HEADER_END = Buffer.from('\r\n\r\n', 'ascii');
const HEADER_NAME = 'content-length:';
/** A header block longer than this is junk, not a header. */
const MAX_HEADER_BYTES = 8 * 1024;
/** A header block from its `content-length:` line to its end, lower-cased. */
const HEADER_BLOCK = /^content-length:[ \t]*\d+[ \t]*(?:\r\n[^\r\n]*)*$/;
/** A `content-length:` line cut before its blank line ends, lower-cased, and how long one can be. */
const CUT_HEADER = /^content-length:[ \t]*\d*[ \t]*(?:\r|\r\n|\r\n\r)?$/;
const CUT_HEADER_BYTES = 64;

/** Why a frame was skipped; `reply` when the sender is owed an error response (JSON-RPC 2.0 §5). */
class FrameError extends Error {
  constructor(message: string, readonly reply?: ResponseMessage) {
    super(message);
  }
}

/**
 * Options of the reader. `reject` sends an error response for a frame that is a request the
 * server cannot take (a batch, an id that is not a number or a string): otherwise its sender
 * would wait forever for an answer.
 */
export interface MessageReaderOptions {
  reject?: (reply: ResponseMessage) => void;
}

/**
 * The unread bytes: a view into storage that grows by doubling, so a frame arriving in n chunks
 * costs O(n) copying in all. (Concatenating the whole buffer with each chunk made an 80 MB
 * message take 55 s to read, issue 22.)
 */
class ByteQueue {
  private storage: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;

  /** The unread bytes (a view; valid until the next append or consume). */
  get bytes(): Buffer {
    return this.storage.subarray(this.start, this.end);
  }

  append(chunk: Buffer): void {
    if (this.end + chunk.length > this.storage.length) {
      const unread = this.end - this.start;
      const grown = Buffer.allocUnsafe(Math.max(64 * 1024, 2 * (unread + chunk.length)));
      this.storage.copy(grown, 0, this.start, this.end);
      this.storage = grown;
      this.start = 0;
      this.end = unread;
    }
    chunk.copy(this.storage, this.end);
    this.end += chunk.length;
  }

  consume(count: number): void {
    this.start += count;
    // Release a large buffer once it is read out, so one big message is not held for good.
    if (this.start === this.end) {
      this.start = this.end = 0;
      if (this.storage.length > 1024 * 1024) this.storage = Buffer.alloc(0);
    }
  }
}

/** Reads LSP frames from a byte stream (stdin). */
export class ResilientMessageReader extends AbstractMessageReader {
  private readonly queue = new ByteQueue();

  /** The unread bytes. */
  private get buffer(): Buffer {
    return this.queue.bytes;
  }
  /** How far the current frame's body has been searched for an embedded header (buffer offset). */
  private scannedTo = 0;

  constructor(private readonly readable: NodeJS.ReadableStream, private readonly options: MessageReaderOptions = {}) {
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
    this.queue.append(chunk);
    for (;;) {
      const step = this.readFrame();
      if (step === 'need-more') return;
      if (step instanceof FrameError) this.refuse(step);
      else this.deliver(step, callback);
    }
  }

  private refuse(error: FrameError): void {
    this.fireError(error);
    if (error.reply) this.options.reject?.(error.reply);
  }

  /**
   * Hands a message to the connection. vscode-jsonrpc throws on some well-framed messages (a
   * `$/cancelRequest` without an id); such a message is reported and dropped, not fatal.
   */
  private deliver(message: Message, callback: DataCallback): void {
    try {
      callback(message);
    } catch (error) {
      this.fireError(new FrameError(`dropped a message the connection could not take: ${String(error)}`));
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
    const embedded = this.findEmbeddedHeader(bodyStart, bodyStart + length);
    if (embedded >= 0) {
      this.consume(embedded);
      return new FrameError(`skipped a frame whose declared length (${length}) runs into the next frame`);
    }
    if (this.buffer.length < bodyStart + length) return 'need-more';
    const message = parseMessage(this.buffer.toString('utf8', bodyStart, bodyStart + length));
    this.consume(message instanceof FrameError ? this.cutHeaderStart(bodyStart, bodyStart + length) : bodyStart + length);
    return message;
  }

  /**
   * Where a bad body ends: at a header the declared end cut in two (`Content-Len` or
   * `Content-Length: 12\r\n`, the rest still to come), else at the declared end.
   */
  private cutHeaderStart(bodyStart: number, bodyEnd: number): number {
    const tailStart = Math.max(bodyStart, bodyEnd - CUT_HEADER_BYTES);
    const tail = this.buffer.toString('latin1', tailStart, bodyEnd).toLowerCase();
    for (let i = tail.indexOf('c'); i >= 0; i = tail.indexOf('c', i + 1)) {
      const rest = tail.slice(i);
      if (HEADER_NAME.startsWith(rest) || CUT_HEADER.test(rest)) return tailStart + i;
    }
    return bodyEnd;
  }

  /**
   * The offset of a complete `Content-Length` header that starts inside the body
   * [bodyStart, bodyEnd), or -1. No valid JSON body holds one (its digits would have to sit in
   * a string, where a raw CR LF cannot), so the declared length was wrong and the next frame
   * starts there. Each byte is searched once however the body arrives in chunks.
   */
  private findEmbeddedHeader(bodyStart: number, bodyEnd: number): number {
    for (let from = Math.max(bodyStart, this.scannedTo); ;) {
      const end = this.buffer.indexOf(HEADER_END, from);
      if (end < 0) {
        this.scannedTo = Math.max(bodyStart, this.buffer.length - HEADER_END.length + 1);
        return -1;
      }
      const windowStart = Math.max(bodyStart, end - MAX_HEADER_BYTES);
      const block = this.buffer.toString('latin1', windowStart, end).toLowerCase();
      const name = block.lastIndexOf(HEADER_NAME);
      if (name >= 0 && windowStart + name >= bodyEnd) return -1;
      if (name >= 0 && HEADER_BLOCK.test(block.slice(name))) return windowStart + name;
      if (end - MAX_HEADER_BYTES >= bodyEnd) return -1;
      from = end + 1;
    }
  }

  /** Drops the first `bytes` bytes (a frame read or skipped). */
  private consume(bytes: number): void {
    this.queue.consume(bytes);
    this.scannedTo = 0;
  }

  /**
   * Drops bytes up to the next `Content-Length:` inside the bad header block (junk glued in front
   * of a real header), else the first `fallback` bytes, and reports why.
   */
  private skip(reason: string, fallback: number): FrameError {
    const next = this.buffer.toString('latin1', 0, fallback).toLowerCase().indexOf(HEADER_NAME, 1);
    this.consume(next > 0 ? next : fallback);
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
  if (Array.isArray(parsed)) {
    return new FrameError('a batch (JSON array) of messages', invalidRequest('batches of messages are not supported by the Language Server Protocol; send each message in its own frame'));
  }
  if (typeof parsed !== 'object' || parsed === null) return new FrameError('a frame that is not a JSON-RPC message object');
  const message = parsed as Record<string, unknown>;
  if (typeof message.method === 'string' && 'id' in message && typeof message.id !== 'number' && typeof message.id !== 'string') {
    return new FrameError(`a request whose id is ${message.id === null ? 'null' : typeof message.id}`,
      invalidRequest(`request ${JSON.stringify(message.method).slice(0, 80)} has an id that is neither a number nor a string`));
  }
  return parsed as Message;
}

/** The JSON-RPC error response for a request without a usable id (its id is null, per JSON-RPC 2.0). */
function invalidRequest(message: string): ResponseMessage {
  return { jsonrpc: '2.0', id: null, error: { code: ErrorCodes.InvalidRequest, message } };
}
