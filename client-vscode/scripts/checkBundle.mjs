#!/usr/bin/env node
/**
 * Fails the build when out/extension.js bundles more than one copy of vscode-jsonrpc.
 * shared/messages.ts builds the custom message objects with vscode-jsonrpc, and
 * vscode-languageclient sends them with its own; vscode-jsonrpc tells parameter structures
 * apart by object identity, so with two copies `sendRequest(CompletionTraceRequest, …)` throws
 * "Unknown parameter structure auto". The build's `--alias:vscode-jsonrpc=vscode-jsonrpc`
 * resolves every import of it from client-vscode/node_modules; this checks that it did.
 *
 *   node scripts/checkBundle.mjs   (after `npm run build`, which writes the source map it reads)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const map = JSON.parse(readFileSync(path.join(CLIENT_DIR, 'out', 'extension.js.map'), 'utf8'));
const copies = map.sources.filter((source) => source.endsWith('vscode-jsonrpc/lib/common/messages.js'));
if (copies.length !== 1) {
  console.error(`out/extension.js holds ${copies.length} copies of vscode-jsonrpc (${copies.join(', ')}); expected 1. ` +
    'Resolve every import of it from client-vscode/node_modules (the build\'s --alias).');
  process.exit(1);
}
