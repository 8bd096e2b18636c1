/**
 * Finds the case that broke a fuzz run: replays a failure dump (written by fuzzRun on a failed
 * probe) one case at a time against a fresh server, probing after each, and prints the first case
 * after which the probe fails.
 *
 *   node dist/test/reliability/fuzz/fuzzReplay.js /tmp/reposhapley-fuzz-failure-PID.jsonl [--timeout-ms 10000]
 */
import { readFileSync } from 'node:fs';
import { createTempWorkspace, PROBE_POSITION, PROBE_PY, tinyModelSettings } from '../fixtureWorkspace.js';
import { RawLspClient } from '../rawLspClient.js';
import { applyDiskEffect } from './documents.js';

interface DumpedCase {
  kind: string;
  disk?: { path: string; base64?: string };
  base64: string;
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: fuzzReplay.js DUMP.jsonl [--timeout-ms N]');
  const timeoutIndex = process.argv.indexOf('--timeout-ms');
  const timeoutMs = timeoutIndex > 0 ? Number(process.argv[timeoutIndex + 1]) : 10_000;
  const [meta, ...cases] = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
  const { workspaceDir } = meta as { workspaceDir: string };
  const workspace = await createTempWorkspace('reposhapley-replay-', workspaceDir);
  const client = RawLspClient.server({ env: { REPOSHAPLEY_LOG: 'debug' } });
  try {
    const settings = tinyModelSettings(workspace.modelPath, { maxTokens: 4 });
    client.configuration = settings;
    await client.initialize(workspace.root, settings);
    await client.waitIndexed();
    client.notify('textDocument/didOpen', { textDocument: { uri: workspace.probeUri, languageId: 'python', version: 1, text: PROBE_PY } });
    for (const [index, c] of (cases as DumpedCase[]).entries()) {
      if (c.disk) applyDiskEffect(c.disk);
      const bytes = Buffer.from(c.base64, 'base64');
      await client.write(bytes);
      const probe = client.request('textDocument/inlineCompletion', { textDocument: { uri: workspace.probeUri }, position: PROBE_POSITION, context: { triggerKind: 1 } });
      try {
        await client.within(`probe after case ${index}`, probe.answer, timeoutMs);
      } catch (error) {
        process.stdout.write(`case ${index} (${c.kind}) broke the probe:\n${bytes.toString('utf8').slice(0, 2000)}\n\n${(error as Error).message}\n`);
        return;
      }
    }
    process.stdout.write(`all ${cases.length} cases replayed; the probe kept answering\n`);
  } finally {
    await client.dispose();
    workspace.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
