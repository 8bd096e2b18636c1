/**
 * Large-message benchmark (issue 22): how long the server over stdio takes to answer a request
 * whose frame is N MB, written in one go as a client would. The frame is an unknown method, so
 * the answer (MethodNotFound) comes as soon as the frame is read and parsed.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/frameBench.js [--sizes 5,20,40,80]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Command } from 'commander';
import { REPO_ROOT } from './repoPaths.js';

const MB = 1024 * 1024;

function frame(message: object): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]);
}

async function main(): Promise<void> {
  const { sizes } = new Command().option('--sizes <mb>', 'frame sizes in MB', '5,20,40,80').parse().opts<{ sizes: string }>();
  const server = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'server', 'src', 'main.js'), 'serve', '--stdio'], {
    stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, REPOSHAPLEY_MODEL: '/nonexistent-model-for-frame-bench.gguf' },
  });
  const waiting = new Map<number, (ms: number) => void>();
  let pending = '';
  server.stdout.setEncoding('latin1');
  server.stdout.on('data', (text: string) => {
    pending += text;
    for (const match of pending.matchAll(/"id":(\d+)/g)) waiting.get(Number(match[1]))?.(performance.now());
    pending = pending.slice(-64);
  });
  const request = (id: number, method: string, params: object) => new Promise<number>((resolve) => {
    const started = performance.now();
    waiting.set(id, (now) => { waiting.delete(id); resolve(now - started); });
    server.stdin.write(frame({ jsonrpc: '2.0', id, method, params }));
  });
  await request(1, 'initialize', { processId: null, rootUri: null, capabilities: {} });
  console.log('| frame | answered after |\n|---|---|');
  let id = 10;
  for (const size of sizes.split(',').map(Number)) {
    const ms = await request(id++, 'bench/large', { payload: 'x'.repeat(size * MB) });
    console.log(`| ${size} MB | ${(ms / 1000).toFixed(2)} s |`);
  }
  server.kill();
}

await main();
