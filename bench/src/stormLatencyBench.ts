/**
 * Watcher storm over stdio (issue 22 must-reach): the built server on a workspace of N files with
 * 15 imports each and the tiny test model; one `didChangeWatchedFiles` with 200 created files,
 * then, 200 ms later, a completion, timed; the same with the 200 deleted. The model is the tiny one on purpose:
 * what is measured is the index work a storm puts in front of the completion.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/stormLatencyBench.js [--files 2000] [--events 200]
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { RawLspClient } from '../../test/reliability/rawLspClient.js';
import { writeTinyModel } from '../../test/support/tinyModel.js';
import { writeStormFiles, writeStormWorkspace } from './stormWorkspace.js';

async function main(): Promise<void> {
  const options = new Command().option('--files <n>', 'workspace files', Number, 2000).option('--events <n>', 'files created, then deleted', Number, 200)
    .parse().opts<{ files: number; events: number }>();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'storm-stdio-'));
  const root = path.join(dir, 'ws');
  const client = RawLspClient.server({ env: { REPOSHAPLEY_LOG: 'warn' } });
  try {
    writeStormWorkspace(root, options.files);
    const probe = path.join(root, 'probe.py');
    writeFileSync(probe, 'from pkg1.mod1 import name0\n\ndef f():\n    return name0.');
    const model = await writeTinyModel({ path: path.join(dir, 'tiny.gguf'), contextLength: 4096 });
    const settings = { modelPath: model.path, threads: 1, maxTokens: 8 };
    client.configuration = settings;
    await client.initialize(root, settings);
    await client.waitIndexed();
    const uri = pathToFileURL(probe).href;
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: 'from pkg1.mod1 import name0\n\ndef f():\n    return name0.' } });
    // The completion is sent 200 ms after the storm, once the server is busy with it (sent at
    // once, it could be served before the storm's handler even starts).
    const completionAfter = async (label: string, version: number) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      client.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text: `from pkg1.mod1 import name0\n\ndef f():\n    return name0.${'x'.repeat(version)}` }] });
      const started = performance.now();
      const { answer } = client.request('textDocument/inlineCompletion', { textDocument: { uri }, position: { line: 3, character: 17 + version }, context: { triggerKind: 1 } });
      await client.within(label, answer, 120_000);
      console.log(`| ${label} | ${((performance.now() - started) / 1000).toFixed(2)} s |`);
    };
    console.log('| completion after | answered in |\n|---|---|');
    await completionAfter('nothing (baseline)', 2);
    const created = writeStormFiles(root, options.files, options.events);
    client.notify('workspace/didChangeWatchedFiles', { changes: created.map((file) => ({ uri: pathToFileURL(file).href, type: 1 })) });
    await completionAfter(`${options.events} created`, 3);
    created.forEach((file) => unlinkSync(file));
    client.notify('workspace/didChangeWatchedFiles', { changes: created.map((file) => ({ uri: pathToFileURL(file).href, type: 3 })) });
    await completionAfter(`${options.events} deleted`, 4);
  } finally {
    await client.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
