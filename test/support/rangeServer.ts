/**
 * A local HTTP file server with Range support, for download tests that never touch the network.
 * `behaviour` can break transfers: `kill-once` cuts the first ranged response after a later
 * chunk's half; `stall` sends a little of every ranged response past the first chunk, then nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ServerBehaviour = 'ok' | 'kill-once' | 'stall';

/** A running server and what it was asked. */
export interface RangeServer {
  url: string;
  /** `GET bytes=0-5242879`, `GET -` (no range), ... in arrival order. */
  requests: string[];
  behaviour: ServerBehaviour;
  close(): Promise<void>;
}

function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  const match = /^bytes=(\d+)-(\d*)$/.exec(header ?? '');
  if (!match) return undefined;
  return { start: Number(match[1]), end: match[2] ? Math.min(Number(match[2]), size - 1) : size - 1 };
}

/** Serves `data` at `/model.gguf` on 127.0.0.1 (any other path: 404). */
export async function startRangeServer(data: Buffer): Promise<RangeServer> {
  let killed = false;
  const state: RangeServer = { url: '', requests: [], behaviour: 'ok', close: async () => {} };
  const server = http.createServer((request, response) => {
    state.requests.push(`${request.method} ${request.headers.range ?? '-'}`);
    if (request.url !== '/model.gguf') return void response.writeHead(404).end();
    const range = parseRange(request.headers.range, data.length);
    const body = range ? data.subarray(range.start, range.end + 1) : data;
    const headers = { 'accept-ranges': 'bytes', 'content-length': body.length, 'content-type': 'application/octet-stream' };
    if (range) response.writeHead(206, { ...headers, 'content-range': `bytes ${range.start}-${range.end}/${data.length}` });
    else response.writeHead(200, headers);
    if (request.method === 'HEAD') return void response.end();
    const later = range !== undefined && range.start > 0 && body.length > 1;
    if (later && state.behaviour === 'kill-once' && !killed) {
      killed = true;
      response.write(body.subarray(0, body.length >> 1), () => setTimeout(() => response.destroy(), 20));
    } else if (later && state.behaviour === 'stall') {
      response.write(body.subarray(0, 1000));
    } else {
      response.end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.gguf`;
  state.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return state;
}
