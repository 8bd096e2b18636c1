/**
 * Hostile model files over stdio (issue 22 must-reach): the server started on one that makes
 * llama.cpp abort (test/support/llamaAborts.ts), then switched
 * to each of the others at run time through `workspace/didChangeConfiguration`, keeps answering
 * every completion (empty), never dies, says what is wrong, and completes again once a good model
 * is set.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { GgufValueType } from '../../server/src/model/gguf/ggufTypes.js';
import { patchGguf } from '../../server/src/model/gguf/patchGguf.js';
import { HOSTILE_HEADERS, withTransposedTensor } from '../support/hostileGguf.js';
import { LLAMA_ABORTS, writeAbortingModel } from '../support/llamaAborts.js';
import { createTempWorkspace, tinyModelSettings, type TempWorkspace } from './fixtureWorkspace.js';
import type { RawLspClient } from './rawLspClient.js';
import { complete, shownMessages, startSession, touch } from './serverSession.js';

let workspace: TempWorkspace;
let client: RawLspClient | undefined;
const hostile: string[] = [];

beforeAll(async () => {
  workspace = await createTempWorkspace('reposhapley-hostile-');
  const dir = path.join(workspace.dir, 'hostile');
  mkdirSync(dir);
  const good = readFileSync(workspace.modelPath);
  const file = (name: string) => path.join(dir, `${name.replace(/\W+/g, '-')}.gguf`);
  // First, so the server starts on a file that aborts llama.cpp (its model host dies, not it).
  for (const [name, changes] of LLAMA_ABORTS) hostile.push(await writeAbortingModel(workspace.modelPath, file(name), changes));
  for (const [name, changes] of HOSTILE_HEADERS) {
    await patchGguf(workspace.modelPath, file(name), { kv: new Map(Object.entries(changes)), rows: [] });
    hostile.push(file(name));
  }
  await patchGguf(workspace.modelPath, file('tokens not an array'), {
    kv: new Map([['tokenizer.ggml.tokens', { type: GgufValueType.UINT32, value: 7 }]]), rows: [],
  });
  await patchGguf(workspace.modelPath, file('unknown architecture'), {
    kv: new Map([['general.architecture', { type: GgufValueType.STRING, value: 'no-such-architecture' }]]), rows: [],
  });
  hostile.push(file('tokens not an array'), file('unknown architecture'));
  const bytes: [string, Buffer][] = [
    ['truncated header', good.subarray(0, 1000)],
    ['truncated data', good.subarray(0, Math.floor(good.length / 2))],
    ['wrong magic', Buffer.concat([Buffer.from('GGUX'), good.subarray(4)])],
    ['version 99', Buffer.concat([good.subarray(0, 4), Buffer.from([99, 0, 0, 0]), good.subarray(8)])],
    ['empty', Buffer.alloc(0)],
    ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251))],
    ['transposed tensor', await withTransposedTensor(workspace.modelPath)],
  ];
  for (const [name, content] of bytes) {
    writeFileSync(file(name), content);
    hostile.push(file(name));
  }
  mkdirSync(file('a directory'));
  hostile.push(file('a directory'));
  // And switched to at run time, after the server has served on other files.
  for (const [name, changes] of LLAMA_ABORTS) hostile.push(await writeAbortingModel(workspace.modelPath, file(`${name} switched to`), changes));
});

afterAll(async () => {
  await client?.dispose();
  workspace?.dispose();
});

test('started on a hostile model and switched through the rest, the server answers every completion and then completes on a good one', async () => {
  expect(hostile.length).toBeGreaterThanOrEqual(30);
  const [first, ...rest] = hostile;
  client = await startSession(workspace, tinyModelSettings(first!));
  let version = 2;
  expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
  for (const modelPath of rest) {
    client.configuration = tinyModelSettings(modelPath);
    client.notify('workspace/didChangeConfiguration', { settings: { reposhapley: client.configuration } });
    touch(client, workspace.probeUri, version++);
    expect(await complete(client, workspace.probeUri), modelPath).toEqual({ items: [], trace: null });
    expect(client.alive, `server died on ${modelPath}:\n${client.stderr.slice(-2000)}`).toBe(true);
  }
  // Each bad file was named to the user.
  const messages = shownMessages(client).join('\n');
  for (const modelPath of hostile) expect(messages, modelPath).toContain(modelPath);
  client.configuration = tinyModelSettings(workspace.modelPath);
  client.notify('workspace/didChangeConfiguration', { settings: { reposhapley: client.configuration } });
  touch(client, workspace.probeUri, version++);
  const good = await complete(client, workspace.probeUri);
  expect(good.trace?.outcome).toBe('ok');
}, 300_000);
