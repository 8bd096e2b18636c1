/**
 * HTTP to one llama.cpp `llama-server`: JSON requests and server-sent-event streams, each with a
 * deadline, the caller's abort (which closes the connection, and llama-server then cancels the
 * task), a bound on requests in flight, and one retry where it is safe.
 *
 * Retries: every request this adapter sends is a pure function of its body (greedy decoding, no
 * server state but the prompt cache), so repeating one costs time, never correctness. A request is
 * retried once when the connection failed before any answer came (a keep-alive socket the server
 * closed on restart is the usual cause); a stream that already delivered tokens is not retried.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';

export interface ModelServerOptions {
  /** Base URL, e.g. `http://gpu-box:8080`. */
  url: string;
  /** Sent as `Authorization: Bearer …` (llama-server's `--api-key`). */
  apiKey?: string;
  /** Deadline for one request, from sending it to its last byte. */
  timeoutMs: number;
  /** Requests allowed in flight at once; more are refused at once rather than queued. */
  maxInFlight?: number;
}

/** Why a model-server request failed, for the message and the status. */
export type ModelServerFailure = 'unreachable' | 'timeout' | 'busy' | 'http' | 'protocol';

export class ModelServerError extends Error {
  constructor(readonly failure: ModelServerFailure, message: string, readonly status?: number) {
    super(message);
    this.name = 'ModelServerError';
  }
}

/** Eight requests: a few editor sessions with a decision and a generation each. */
const DEFAULT_MAX_IN_FLIGHT = 8;
/**
 * After the server could not be reached, requests fail at once for this long instead of each
 * waiting for the network (a host that is down can take the whole timeout to say so); then one
 * goes through and finds out whether it is back.
 */
export const RECHECK_MS = 2_000;

export class LlamaServerApi {
  private readonly base: string;
  private inFlight = 0;
  /** Set while the server is taken to be down: until when, and why. */
  private down?: { until: number; error: ModelServerError };

  constructor(private readonly options: ModelServerOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  get url(): string {
    return this.base;
  }

  async getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.json<T>(path, undefined, signal);
  }

  async postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    return this.json<T>(path, body, signal);
  }

  /**
   * POST `body` with `stream: true` and yield each event's JSON. Breaking out of the loop (or an
   * abort) closes the connection.
   */
  async *stream<T>(path: string, body: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<T> {
    // Aborted when the caller stops reading: the connection closes and llama-server stops generating.
    const reading = new AbortController();
    const { response, release, deadline } = await this.send(path, { ...body, stream: true }, signal, 'first answer', reading.signal);
    try {
      if (!response.body) throw new ModelServerError('protocol', `${this.base}${path} answered without a body`);
      const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
      for await (const event of events) {
        if (event.data === '[DONE]') return;
        const data = parseJson(event.data, path) as T & { error?: { message?: string } };
        if (data && typeof data === 'object' && data.error) {
          throw new ModelServerError('http', `${this.base}${path}: ${data.error.message ?? JSON.stringify(data.error)}`);
        }
        yield data as Awaited<T>;
      }
    } catch (error) {
      throw this.markDown(this.classify(error, path, signal, deadline));
    } finally {
      reading.abort();
      release();
    }
  }

  private async json<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const { response, release, deadline } = await this.send(path, body, signal, 'answer');
    try {
      return parseJson(await response.text(), path) as T;
    } catch (error) {
      throw this.markDown(this.classify(error, path, signal, deadline));
    } finally {
      release();
    }
  }

  /**
   * Send one request (retried once if the connection failed before an answer), resolving once the
   * status line came back as 2xx. `release` ends the request's slot and its deadline.
   */
  private async send(
    path: string, body: unknown, signal: AbortSignal | undefined, waitingFor: string, reading?: AbortSignal,
  ): Promise<{ response: Response; release: () => void; deadline: AbortSignal }> {
    signal?.throwIfAborted();
    if (this.down && performance.now() < this.down.until) throw this.down.error;
    const limit = this.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    if (this.inFlight >= limit) {
      throw new ModelServerError('busy', `${this.base} has ${this.inFlight} requests in flight already; this one was not sent`);
    }
    this.inFlight++;
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const combined = AbortSignal.any([deadline, ...(signal ? [signal] : []), ...(reading ? [reading] : [])]);
    let released = false;
    const release = () => {
      if (!released) this.inFlight--;
      released = true;
    };
    try {
      const response = await this.fetchWithRetry(path, body, combined);
      if (!response.ok) throw await httpError(response, this.base + path);
      this.down = undefined;
      return { response, release, deadline };
    } catch (error) {
      release();
      throw this.markDown(this.classify(error, path, signal, deadline, waitingFor));
    }
  }

  /** A server that could not be reached, or did not answer in time, is taken to be down for RECHECK_MS. */
  private markDown(failure: unknown): unknown {
    if (failure instanceof ModelServerError && (failure.failure === 'unreachable' || failure.failure === 'timeout')) {
      this.down = { until: performance.now() + RECHECK_MS, error: failure };
    }
    return failure;
  }

  private async fetchWithRetry(path: string, body: unknown, signal: AbortSignal): Promise<Response> {
    const init: RequestInit = {
      method: body === undefined ? 'GET' : 'POST',
      headers: this.headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    };
    try {
      return await fetch(this.base + path, init);
    } catch (error) {
      if (signal.aborted || !isConnectionError(error)) throw error;
      return fetch(this.base + path, init);
    }
  }

  private headers(hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {};
    if (hasBody) headers['content-type'] = 'application/json';
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  /** The caller's abort stays an abort; the rest become a ModelServerError that says what failed. */
  private classify(error: unknown, path: string, signal: AbortSignal | undefined, deadline: AbortSignal, waitingFor = 'answer'): unknown {
    if (error instanceof ModelServerError) return error;
    if (signal?.aborted) return signal.reason;
    if (deadline.aborted) {
      return new ModelServerError('timeout', `${this.base}${path} gave no ${waitingFor} within ${this.options.timeoutMs} ms`);
    }
    if (isConnectionError(error)) {
      return new ModelServerError('unreachable', `${this.base} is not reachable (${connectionCause(error)})`);
    }
    return new ModelServerError('protocol', `${this.base}${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelServerError('protocol', `${path} answered with something that is not JSON: ${text.slice(0, 120)}`);
  }
}

async function httpError(response: Response, url: string): Promise<ModelServerError> {
  const text = await response.text().catch(() => '');
  let detail = text.slice(0, 200);
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string };
    detail = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? detail;
  } catch {
    // not JSON: keep the text
  }
  const hint = response.status === 401 ? ' (set reposhapley.modelServerApiKey to the server\'s --api-key)' : '';
  // 503 is llama-server still loading its model: the server is there, the model is not yet.
  const failure = response.status === 503 ? 'unreachable' : 'http';
  return new ModelServerError(failure, `${url} answered ${response.status}: ${detail}${hint}`, response.status);
}

/** fetch() reports a refused or reset connection as a TypeError whose cause has a system code. */
function isConnectionError(error: unknown): boolean {
  return error instanceof TypeError && connectionCause(error) !== undefined;
}

function connectionCause(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (!cause) return undefined;
  return cause.code ?? cause.message;
}
