import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import type { Message } from 'vscode-languageserver/node';
import { ResilientMessageReader } from './messageReader.js';

function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;
}

/** Feeds `chunks` to a reader and returns what it delivered and which errors it raised. */
function read(chunks: (string | Buffer)[]) {
  const stream = new PassThrough();
  const reader = new ResilientMessageReader(stream);
  const messages: Message[] = [];
  const errors: string[] = [];
  reader.onError((error) => errors.push(error.message));
  reader.listen((message) => messages.push(message));
  for (const chunk of chunks) stream.write(chunk);
  return { messages, errors };
}

const first = '{"jsonrpc":"2.0","id":1,"method":"a","params":{"text":"héllo ✓ 😀"}}';
const second = '{"jsonrpc":"2.0","method":"b"}';

test('reads frames however the bytes are chunked, multi-byte characters included', () => {
  const bytes = Buffer.from(frame(first) + frame(second), 'utf8');
  for (const size of [1, 2, 3, 7, bytes.length]) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    const { messages, errors } = read(chunks);
    expect(errors).toEqual([]);
    expect(messages).toEqual([JSON.parse(first), JSON.parse(second)]);
  }
});

test('a large frame in small chunks, between small ones, arrives whole (the buffer grows by doubling)', () => {
  const large = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'big', params: { text: 'é'.repeat(3 * 1024 * 1024) } });
  const bytes = Buffer.from(frame(first) + frame(large) + frame(second) + frame(first), 'utf8');
  const chunks: Buffer[] = [];
  // Uneven chunk sizes, so chunk and frame boundaries never line up the same way.
  for (let i = 0, size = 1; i < bytes.length; i += size, size = (size * 7 + 3) % 65_536 + 1) chunks.push(bytes.subarray(i, i + size));
  const { messages, errors } = read(chunks);
  expect(errors).toEqual([]);
  expect(messages).toEqual([JSON.parse(first), JSON.parse(large), JSON.parse(second), JSON.parse(first)]);
});

test.each<[string, string]>([
  ['invalid JSON', frame('{"jsonrpc": "2.0", "id": 9, "method": ')],
  ['a non-numeric Content-Length', 'Content-Length: abc\r\n\r\n'],
  ['a missing Content-Length', 'Content-Type: application/json\r\n\r\n'],
  ['junk before a header', 'garbage without a header end'],
  ['a body that is not an object', frame('[1,2,3]')],
  ['a Content-Length too short', 'Content-Length: 5\r\n\r\n{"jsonrpc":"2.0","method":"lost"}'],
])('skips %s and reads the frames around it, in one chunk', (_name, bad) => {
  const { messages, errors } = read([frame(first) + bad + frame(second)]);
  expect(messages).toEqual([JSON.parse(first), JSON.parse(second)]);
  expect(errors.length).toBeGreaterThan(0);
});

test('a header block that never ends is dropped once it is too long to be a header', () => {
  const { messages, errors } = read(['x'.repeat(10_000), frame(second)]);
  expect(messages).toEqual([JSON.parse(second)]);
  expect(errors).toHaveLength(1);
});

test.each<[string, string]>([
  ['a Content-Length too long', `Content-Length: ${Buffer.byteLength(second) + 500}\r\n\r\n${second}`],
  ['a Content-Length ending inside the next header', `Content-Length: ${Buffer.byteLength(second) + 9}\r\n\r\n${second}`],
  ['a huge Content-Length', 'Content-Length: 99999999999999999999\r\n\r\n{"jsonrpc":'],
  ['a truncated body', `Content-Length: ${Buffer.byteLength(first)}\r\n\r\n${first.slice(0, 20)}`],
])('%s does not swallow the frame after it, however the bytes are chunked', (_name, bad) => {
  const bytes = Buffer.from(frame(first) + bad + frame(second), 'utf8');
  for (const size of [1, 5, bytes.length]) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    const { messages, errors } = read(chunks);
    expect(messages).toEqual([JSON.parse(first), JSON.parse(second)]);
    expect(errors).toHaveLength(1);
  }
});

test('a body may hold header-like text and blank lines where JSON allows them', () => {
  const tricky = '{"jsonrpc":"2.0","method":"c","params":{"text":"Content-Length: 5\\r\\n\\r\\n"}}\r\n\r\n';
  const { messages, errors } = read([frame(tricky) + frame(second)]);
  expect(errors).toEqual([]);
  expect(messages).toEqual([JSON.parse(tricky), JSON.parse(second)]);
});

test('a message the connection throws on is reported and dropped; the next one is read', () => {
  const stream = new PassThrough();
  const reader = new ResilientMessageReader(stream);
  const messages: Message[] = [];
  const errors: string[] = [];
  reader.onError((error) => errors.push(error.message));
  reader.listen((message) => {
    if ((message as { method?: string }).method === 'a') throw new TypeError('cannot read id');
    messages.push(message);
  });
  stream.write(frame(first) + frame(second));
  expect(messages).toEqual([JSON.parse(second)]);
  expect(errors).toEqual([expect.stringContaining('cannot read id')]);
});
