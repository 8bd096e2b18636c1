/**
 * The server's framing reader (server/src/lsp/messageReader.ts) in-process, under the fuzz's
 * malformed frames cut into random chunks: every well-formed request in the stream, and every
 * valid frame written between the bad ones, comes out. Fast, so it runs many more cases than
 * the stdio fuzz (REPOSHAPLEY_READER_FUZZ_CASES, default 20,000).
 */
import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import type { Message } from 'vscode-languageserver/node';
import { ResilientMessageReader } from '../../server/src/lsp/messageReader.js';
import { framed, type FuzzContext } from './fuzz/fuzzCase.js';
import { frameCase } from './fuzz/frames.js';
import { Random } from './random.js';
import type { RequestId } from './rawLspClient.js';

const CASES = Number(process.env.REPOSHAPLEY_READER_FUZZ_CASES ?? 20_000);
const SEED = Number(process.env.REPOSHAPLEY_FUZZ_SEED ?? 20_261_129);

function frameContext(random: Random): FuzzContext {
  let next = 1;
  return {
    random, workspace: '/nonexistent', documentUris: ['file:///nonexistent/a.py'], documentLines: new Map(),
    modelPath: '/nonexistent/model.gguf', nextId: () => `r${next++}`,
  };
}

test(`the framing reader loses no well-formed frame among ${CASES} malformed ones, however they are chunked`, () => {
  const random = new Random(SEED);
  const context = frameContext(random);
  const stream = new PassThrough();
  const reader = new ResilientMessageReader(stream);
  const delivered = new Set<RequestId>();
  let errors = 0;
  reader.onError(() => errors++);
  reader.listen((message: Message) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') delivered.add(id);
  });
  const expected: RequestId[] = [];
  let pending: Buffer[] = [];
  const flush = (): void => {
    const bytes = Buffer.concat(pending);
    pending = [];
    for (let at = 0; at < bytes.length;) {
      const size = random.chance(0.2) ? random.between(1, 8) : random.between(1, 70_000);
      stream.write(bytes.subarray(at, at + size));
      at += size;
    }
  };
  for (let i = 0; i < CASES; i++) {
    const c = frameCase(context);
    pending.push(c.bytes);
    expected.push(...c.requestIds);
    if (i % 10 === 9) {
      // A valid frame after every ten bad ones: what an editor sends next.
      const id = `valid-${i}`;
      pending.push(framed(JSON.stringify({ jsonrpc: '2.0', id, method: 'reposhapley/completionTrace', params: {} })));
      expected.push(id);
    }
    if (i % 200 === 199) flush();
  }
  pending.push(framed(JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'shutdown' })));
  expected.push('last');
  flush();
  const lost = expected.filter((id) => !delivered.has(id));
  expect(lost).toEqual([]);
  expect(errors).toBeGreaterThan(CASES / 4);
});
