/**
 * Resident memory after repeated `initialize` requests (issue 22 must-reach: after 50 within 5 % of
 * after one). The built server on the README's fixture workspace completes once with a real model
 * (so it is loaded), then gets N − 1 more `initialize` requests, which it refuses; the memory of the
 * server and of its model host processes is read from /proc before and after.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/initializeMemoryBench.js [--model FILE|NAME] [--count 50]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { modelFileFromArgument } from '../../server/src/completion/modelChoice.js';
import { RawLspClient } from '../../test/reliability/rawLspClient.js';
import { REPO_ROOT } from './repoPaths.js';

const WORKSPACE = path.join(REPO_ROOT, 'test', 'fixtures', 'lsp-workspace');

async function main(): Promise<void> {
  const options = new Command()
    .option('--model <file|name>', 'GGUF or catalog name', 'qwen2.5-coder-0.5b')
    .option('--count <n>', 'initialize requests in all', Number, 50)
    .parse().opts<{ model: string; count: number }>();
  const settings = { modelPath: modelFileFromArgument(options.model), threads: 2, maxTokens: 8 };
  const client = RawLspClient.server({ env: { REPOSHAPLEY_LOG: 'warn' } });
  await client.initialize(WORKSPACE, settings);
  await client.waitIndexed();
  const uri = pathToFileURL(path.join(WORKSPACE, 'main.py')).href;
  const text = readFileSync(path.join(WORKSPACE, 'main.py'), 'utf8');
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
  const { answer } = client.request('textDocument/inlineCompletion', { textDocument: { uri }, position: { line: 10, character: 22 }, context: { triggerKind: 1 } });
  const completion = (await client.within('completion', answer, 120_000)).result as { items: { insertText: string }[] };
  const sample = () => ({ serverKiB: client.rssKiB(), hostsKiB: client.childPids().map((pid) => client.rssKiB(pid)) });
  const afterOne = sample();
  for (let i = 1; i < options.count; i++) {
    const repeated = client.request('initialize', { processId: process.pid, rootUri: pathToFileURL(WORKSPACE).href, capabilities: {}, initializationOptions: settings });
    await client.within('initialize', repeated.answer);
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const afterAll = sample();
  const growth = ((afterAll.serverKiB! / afterOne.serverKiB! - 1) * 100).toFixed(2);
  console.log(`completion ${JSON.stringify(completion.items[0]?.insertText)}; after 1 initialize ${JSON.stringify(afterOne)}, ` +
    `after ${options.count} ${JSON.stringify(afterAll)}: server ${growth} %`);
  await client.dispose();
}

await main();
