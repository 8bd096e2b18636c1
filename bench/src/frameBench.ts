/**
 * Large-message benchmark (issue 22): how long the server over stdio takes to answer a request
 * whose frame is N MB, written in one go as a client would. The frame is an unknown method, so
 * the answer (MethodNotFound) comes as soon as the frame is read and parsed.
 *
 *   npx tsc -p tsconfig.json && node dist/bench/src/frameBench.js [--sizes 5,20,40,80]
 */
import { Command } from 'commander';
import { RawLspClient } from '../../test/reliability/rawLspClient.js';

const MB = 1024 * 1024;

async function main(): Promise<void> {
  const { sizes } = new Command().option('--sizes <mb>', 'frame sizes in MB', '5,20,40,80').parse().opts<{ sizes: string }>();
  const client = RawLspClient.server({ env: { REPOSHAPLEY_MODEL: '/nonexistent-model-for-frame-bench.gguf' } });
  try {
    await client.initialize(undefined);
    console.log('| frame | answered after |\n|---|---|');
    for (const size of sizes.split(',').map(Number)) {
      const { answer } = client.request('bench/large', { payload: 'x'.repeat(size * MB) });
      const { latencyMs } = await client.within(`${size} MB frame`, answer, 300_000);
      console.log(`| ${size} MB | ${(latencyMs / 1000).toFixed(2)} s |`);
    }
  } finally {
    await client.dispose();
  }
}

await main();
