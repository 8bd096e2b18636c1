/** The HTTP layer's rules, against a stand-in fetch: what is retried, refused, and failed fast. */
import { afterEach, expect, test, vi } from 'vitest';
import { LlamaServerApi, ModelServerError, RECHECK_MS } from './llamaServerApi.js';

const refused = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

test('a connection that failed before any answer is tried once more', async () => {
  const fetch = vi.spyOn(globalThis, 'fetch')
    .mockRejectedValueOnce(Object.assign(new TypeError('fetch failed'), { cause: { code: 'UND_ERR_SOCKET' } }))
    .mockResolvedValueOnce(new Response('{"ok":1}'));
  const api = new LlamaServerApi({ url: 'http://gpu:8080/', timeoutMs: 1_000 });
  expect(await api.getJson('/props')).toEqual({ ok: 1 });
  expect(fetch).toHaveBeenCalledTimes(2);
  expect(fetch.mock.calls[0]![0]).toBe('http://gpu:8080/props');
});

test('after the server could not be reached, requests fail at once until RECHECK_MS passed', async () => {
  const fetch = vi.spyOn(globalThis, 'fetch').mockRejectedValue(refused());
  const now = vi.spyOn(performance, 'now').mockReturnValue(1_000);
  const api = new LlamaServerApi({ url: 'http://gpu:8080', timeoutMs: 1_000 });
  await expect(api.getJson('/props')).rejects.toMatchObject({ failure: 'unreachable' });
  const calls = fetch.mock.calls.length;
  await expect(api.postJson('/completion', {})).rejects.toBeInstanceOf(ModelServerError);
  expect(fetch.mock.calls.length).toBe(calls);
  now.mockReturnValue(1_000 + RECHECK_MS + 1);
  fetch.mockResolvedValue(new Response('{}'));
  expect(await api.getJson('/props')).toEqual({});
});

test('requests beyond maxInFlight are refused, not queued', async () => {
  vi.spyOn(globalThis, 'fetch').mockImplementation(() => new Promise(() => undefined));
  const api = new LlamaServerApi({ url: 'http://gpu:8080', timeoutMs: 60_000, maxInFlight: 2 });
  const pending = [api.getJson('/a'), api.getJson('/b')];
  await expect(api.getJson('/c')).rejects.toMatchObject({ failure: 'busy' });
  void pending;
});

test('HTTP errors carry the status and the server\'s message; 401 says which setting holds the key', async () => {
  vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{"error":{"code":401,"message":"Invalid API Key"}}', { status: 401 }));
  const api = new LlamaServerApi({ url: 'http://gpu:8080', timeoutMs: 1_000 });
  const error = await api.getJson('/props').catch((e: unknown) => e);
  expect(error).toMatchObject({ failure: 'http', status: 401 });
  expect((error as Error).message).toMatch(/Invalid API Key.*modelServerApiKey/);
});

test('the API key goes out as a bearer token', async () => {
  const fetch = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('{}'));
  await new LlamaServerApi({ url: 'http://gpu:8080', timeoutMs: 1_000, apiKey: 's3cret' }).postJson('/tokenize', { content: 'x' });
  const init = fetch.mock.calls[0]![1]!;
  expect((init.headers as Record<string, string>).authorization).toBe('Bearer s3cret');
  expect(init.method).toBe('POST');
});

test('a stream yields each event and stops at [DONE]', async () => {
  const body = 'data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\ndata: {"a":3}\n\n';
  vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response(body));
  const api = new LlamaServerApi({ url: 'http://gpu:8080', timeoutMs: 1_000 });
  const seen: unknown[] = [];
  for await (const event of api.stream('/completion', {})) seen.push(event);
  expect(seen).toEqual([{ a: 1 }, { a: 2 }]);
});
