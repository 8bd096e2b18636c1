/**
 * Malformed frames: bad Content-Length values, lengths too short or too long (padded or not),
 * truncated bodies, invalid JSON and UTF-8, JSON that is not a message, deep nesting, huge
 * frames, junk between frames, and header spellings a lenient reader must accept.
 */
import type { Random } from '../random.js';
import { framed, request, type CaseGenerator, type FuzzCase, type FuzzContext } from './fuzzCase.js';
import { deepJsonText, randomJson } from './jsonValues.js';

/** A small well-formed body (a notification nobody handles) to wrap in broken frames. */
function sampleBody(random: Random): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'reposhapley/fuzzNoop', params: { n: random.int(1000), s: random.text(random.int(40)) } });
}

function bytesCase(kind: string, ...parts: (string | Buffer)[]): FuzzCase {
  return { kind, bytes: Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))), requestIds: [] };
}

/** A Content-Length value that is not a usable number. */
const badLengthValue: CaseGenerator = ({ random }) => {
  const value = random.pick(['abc', '', ' ', '-5', '1.5', '0x10', '+5', '1e3', '١٢', '5 5', '12abc', '\t', 'NaN', 'Infinity']);
  return bytesCase('frame/bad-length-value', `Content-Length: ${value}\r\n\r\n`, sampleBody(random));
};

/** No Content-Length header at all (only other headers). */
const missingLength: CaseGenerator = ({ random }) =>
  bytesCase('frame/missing-length', random.pick(['Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n', 'X: 1\r\n\r\n', '\r\n\r\n', ':\r\n\r\n']), sampleBody(random));

/** Declared length shorter than the body: the rest of the body is junk before the next header. */
const shortLength: CaseGenerator = ({ random }) => {
  const body = Buffer.from(sampleBody(random), 'utf8');
  return bytesCase('frame/short-length', `Content-Length: ${random.int(body.length)}\r\n\r\n`, body);
};

/** Declared length longer than the body, padded with junk up to the declared length. */
const longLengthPadded: CaseGenerator = ({ random }) => {
  const body = Buffer.from(sampleBody(random), 'utf8');
  const extra = random.between(1, 3000);
  return bytesCase('frame/long-length-padded', `Content-Length: ${body.length + extra}\r\n\r\n`, body, random.bytes(extra));
};

/** Declared length longer than the body and nothing to make up for it: the next frame follows at once. */
const longLength: CaseGenerator = ({ random }) => {
  const body = Buffer.from(sampleBody(random), 'utf8');
  return bytesCase('frame/long-length', `Content-Length: ${body.length + random.between(1, 20_000)}\r\n\r\n`, body);
};

/** A declared length no client could mean (gigabytes and beyond), then the next frame. */
const hugeDeclaredLength: CaseGenerator = ({ random }) => {
  const value = random.pick(['2147483648', '4294967296', '9007199254740993', '99999999999999999999999999', `${2 ** 40}`]);
  return bytesCase('frame/huge-declared-length', `Content-Length: ${value}\r\n\r\n`, sampleBody(random).slice(0, random.int(30)));
};

/** A body cut short: the header has the full length, fewer bytes follow. */
const truncated: CaseGenerator = ({ random }) => {
  const body = Buffer.from(sampleBody(random), 'utf8');
  return bytesCase('frame/truncated', `Content-Length: ${body.length}\r\n\r\n`, body.subarray(0, random.int(body.length)));
};

/** Correctly framed bodies that are not JSON. */
const invalidJson: CaseGenerator = ({ random }) => {
  const body = random.weighted<() => string | Buffer>([
    [3, () => random.text(random.between(1, 200))],
    [2, () => random.bytes(random.between(1, 200))],
    [2, () => sampleBody(random).slice(0, -1 - random.int(10))],
    [1, () => `${sampleBody(random)}x`],
    [1, () => random.pick(['NaN', "{'jsonrpc': '2.0'}", '{"a":1,}', '// c\n{}', '{"jsonrpc":"2.0","method":"a"}{"b":1}', '\u0000', ''])],
    [1, () => Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"x","params":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from('"}')])],
  ])();
  return bytesCase('frame/invalid-json', framed(body));
};

/** Valid JSON that is not a JSON-RPC message, or a message with fields of the wrong type. */
const wrongTypes: CaseGenerator = (context) => {
  const { random } = context;
  const bodies: (() => unknown)[] = [
    () => randomJson(random, 3),
    () => [{ jsonrpc: '2.0', id: 1, method: 'textDocument/inlineCompletion' }],
    () => ({ jsonrpc: '2.0', id: randomJson(random, 1), method: 'reposhapley/completionTrace', params: {} }),
    () => ({ jsonrpc: '2.0', id: random.int(10), method: randomJson(random, 1), params: {} }),
    () => ({ jsonrpc: random.pick(['1.0', 2, null]), method: 'textDocument/didClose', params: randomJson(random, 2) }),
    () => ({ jsonrpc: '2.0', id: 900_000_000 + random.int(1000), result: randomJson(random, 2) }),
    () => ({ jsonrpc: '2.0', id: random.pick([null, 1, 2, 3]), error: { code: random.int(100), message: random.text(10) } }),
  ];
  if (random.chance(0.1)) {
    const deep = deepJsonText(random.between(100, 5000), '{"a":', '}').replace('{"a":}', '{"a":1}');
    return { kind: 'frame/wrong-types', bytes: framed(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":${deep}}`), requestIds: [] };
  }
  return { kind: 'frame/wrong-types', bytes: framed(JSON.stringify(random.pick(bodies)())), requestIds: [] };
};

/** Deeply nested JSON (parsers and printers that recurse overflow their stack). */
const deepJson: CaseGenerator = (context) => {
  const { random } = context;
  const depth = random.pick([1_000, 10_000, 100_000]);
  const nested = random.chance(0.5) ? deepJsonText(depth) : deepJsonText(depth, '{"a":', '}').replace('{"a":}', '{"a":0}');
  if (random.chance(0.5)) return bytesCase('frame/deep-json', framed(nested));
  const { bytes, id } = request(context, random.pick(['textDocument/inlineCompletion', 'reposhapley/completionTrace', 'reposhapley/noSuchMethod']), null);
  const body = bytes.toString('utf8').replace(/"params":null/, `"params":${nested}`);
  return { kind: 'frame/deep-json-request', bytes: framed(body.slice(body.indexOf('{'))), requestIds: [id] };
};

/** Junk bytes between frames, sometimes longer than any header could be. */
const junk: CaseGenerator = ({ random }) => {
  const length = random.chance(0.1) ? random.between(8_000, 40_000) : random.between(1, 300);
  return bytesCase('frame/junk', random.chance(0.5) ? random.bytes(length) : random.text(length).replace(/content-length/gi, 'x'));
};

/** Header spellings the reader must accept: the request inside must be answered. */
const headerVariants: CaseGenerator = (context) => {
  const { random } = context;
  const { bytes, id } = request(context, 'reposhapley/completionTrace', {});
  const body = bytes.subarray(bytes.indexOf('\r\n\r\n') + 4);
  const header = random.pick([
    `content-length: ${body.length}\r\n\r\n`,
    `CONTENT-LENGTH:${body.length}\r\n\r\n`,
    `Content-Length:   ${body.length}   \r\n\r\n`,
    `Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n`,
    `Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n`,
  ]);
  return { kind: 'frame/header-variant', bytes: Buffer.concat([Buffer.from(header, 'ascii'), body]), requestIds: [id] };
};

/** Headers ended by bare LF (not CRLF), as a careless client writes them. */
const lfOnlyHeader: CaseGenerator = ({ random }) => {
  const body = sampleBody(random);
  return bytesCase('frame/lf-only-header', `Content-Length: ${Buffer.byteLength(body)}\n\n`, body);
};

/** Big frames: a correctly framed body of megabytes that is junk, or a giant string parameter. */
const hugeFrame: CaseGenerator = (context) => {
  const { random } = context;
  const size = random.between(1, 6) * 1024 * 1024;
  if (random.chance(0.5)) return bytesCase('frame/huge-invalid', framed(Buffer.alloc(size, random.pick(['x', '{', '\u0000']))));
  const { bytes, id } = request(context, 'reposhapley/noSuchMethod', { blob: 'y'.repeat(size) });
  return { kind: 'frame/huge-request', bytes, requestIds: [id] };
};

/** The frame generators and their weights. */
export const FRAME_GENERATORS: readonly (readonly [number, CaseGenerator])[] = [
  [6, badLengthValue],
  [3, missingLength],
  [5, shortLength],
  [4, longLengthPadded],
  [3, longLength],
  [1, hugeDeclaredLength],
  [4, truncated],
  [8, invalidJson],
  [8, wrongTypes],
  [0.3, deepJson],
  [5, junk],
  [4, headerVariants],
  [2, lfOnlyHeader],
  [0.02, hugeFrame],
];

/** One random malformed-frame case. */
export function frameCase(context: FuzzContext): FuzzCase {
  return context.random.weighted(FRAME_GENERATORS)(context);
}
