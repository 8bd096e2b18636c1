/**
 * What the server must never do, checked on the built server from outside it:
 * - read outside the workspace roots: URIs with `..` (plain and %-encoded), watcher events and
 *   didOpen/didClose for outside paths, symlinks (to a directory, to a file, to /etc) out of the root,
 *   project files and `.gitignore`s that point or link out (and FIFOs in their place must not hang it);
 * - execute workspace code: setup.py, conftest.py, sitecustomize.py, a .pth file, __init__.py,
 *   noxfile.py that would each leave a marker file behind;
 * - open network connections, whatever the settings say (a modelPath that is an http(s) URL).
 * Witnesses: strace (files opened, programs executed, sockets made) where it runs, file access
 * times everywhere, and retrieval (nothing outside the roots is ever a candidate).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createTempWorkspace, tinyModelSettings, type TempWorkspace } from './fixtureWorkspace.js';
import { MAIN_JS, type RawLspClient } from './rawLspClient.js';
import { complete, openDocument, shownMessages, startSession, touch } from './serverSession.js';
import { atimeWorks, markUnread, readStraceLog, straceWrapper, wasRead } from './syscallAudit.js';

let workspace: TempWorkspace;
let outside: string;
const clients: RawLspClient[] = [];
beforeEach(async () => {
  workspace = await createTempWorkspace('reposhapley-security-');
  outside = path.join(workspace.dir, 'outside');
  mkdirSync(path.join(outside, 'pkg'), { recursive: true });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  workspace.dispose();
});

/** A module outside the workspace whose names retrieval would surely rank first if it saw them. */
const SECRET = 'def secret_outside_function(token):\n    return "SECRET-OUTSIDE-CANARY" + token\n';

async function audited(settings: Record<string, unknown>): Promise<{ client: RawLspClient; log?: string }> {
  const log = path.join(workspace.dir, 'strace.log');
  const wrapper = straceWrapper(log);
  const client = await startSession(workspace, settings, { wrapper });
  clients.push(client);
  return { client, log: wrapper ? log : undefined };
}

/** Candidates of a completion after `line` in a new workspace document. */
async function candidatesAfter(client: RawLspClient, name: string, line: string): Promise<string[]> {
  const uri = workspace.uri(`${name}.py`);
  openDocument(client, uri, line);
  const completion = await complete(client, uri, { line: 0, character: line.length });
  expect(completion.trace?.outcome).toBe('ok');
  return completion.trace!.candidates.map((c) => c.relPath);
}

test('nothing outside the roots is read: `..` URIs, outside watcher events, symlinks out (to a directory, a file, /etc)', async () => {
  const secretFile = path.join(outside, 'secret.py');
  writeFileSync(secretFile, SECRET);
  writeFileSync(path.join(outside, 'pkg', 'deep.py'), SECRET.replace('secret_outside_function', 'deep_outside_function'));
  symlinkSync(outside, path.join(workspace.root, 'linked_dir'));
  symlinkSync(secretFile, path.join(workspace.root, 'linked_file.py'));
  symlinkSync('/etc', path.join(workspace.root, 'etc'));
  const outsideFiles = [secretFile, path.join(outside, 'pkg', 'deep.py')];
  const atime = atimeWorks(path.join(workspace.dir, 'tiny.gguf'));
  outsideFiles.forEach(markUnread);

  const { client, log } = await audited(tinyModelSettings(workspace.modelPath, { policy: 'full' }));
  const dotDot = [
    `${workspace.uri('')}/../outside/secret.py`,
    `${workspace.uri('')}/%2E%2E/outside/secret.py`,
    `${workspace.uri('linked_dir')}/secret.py`,
    pathToFileURL(secretFile).href,
    'file:///etc/passwd',
    `${workspace.uri('')}/../../../../../../etc/passwd`,
  ];
  client.notify('workspace/didChangeWatchedFiles', { changes: dotDot.map((uri) => ({ uri, type: 1 })) });
  for (const [i, uri] of dotDot.entries()) {
    openDocument(client, uri, `def opened_outside_${i}():\n    return "OPENED-OUTSIDE"\n`);
    client.notify('textDocument/didClose', { textDocument: { uri } });
    openDocument(client, uri, `def opened_outside_${i}():\n    return "OPENED-OUTSIDE"\n`, 2);
  }
  const seen = [
    ...await candidatesAfter(client, 'use_secret', 'value = secret_outside_function('),
    ...await candidatesAfter(client, 'use_deep', 'value = deep_outside_function('),
    ...await candidatesAfter(client, 'use_opened', 'value = opened_outside_0('),
    ...await candidatesAfter(client, 'use_passwd', 'root = "root:x:0:0:root:/root:/bin/bash"'),
  ];
  expect(seen.filter((p) => !['probe.py', 'lib/helpers.py', 'lib/__init__.py'].includes(p) && !p.startsWith('use_'))).toEqual([]);

  await client.within('shutdown', client.request('shutdown').answer);
  client.notify('exit');
  await client.exited;
  if (atime) for (const file of outsideFiles) expect(wasRead(file), file).toBe(false);
  if (log) {
    const { opened } = readStraceLog(log);
    expect(opened.filter((p) => p.startsWith(outside) || p.includes('/linked_') || p.startsWith(`${workspace.root}/etc`) || p === '/etc/passwd')).toEqual([]);
    expect(opened.some((p) => p.startsWith(workspace.root))).toBe(true); // the audit saw the workspace being read
  }
});

test('project files and .gitignores read nothing outside the roots, and FIFOs in their place hang nothing', async () => {
  const outsideFiles = {
    tsconfig: path.join(outside, 'tsconfig.base.json'), cargo: path.join(outside, 'Cargo.toml'),
    goMod: path.join(outside, 'go.mod'), ignore: path.join(outside, 'ignore-rules'),
  };
  writeFileSync(outsideFiles.tsconfig, '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["src/*"] } } }');
  writeFileSync(outsideFiles.cargo, '[package]\nname = "outside"\n');
  writeFileSync(outsideFiles.goMod, 'module example.com/outside\n');
  writeFileSync(outsideFiles.ignore, 'app.ts\n');
  const write = (relPath: string, text: string) => {
    mkdirSync(path.dirname(path.join(workspace.root, relPath)), { recursive: true });
    writeFileSync(path.join(workspace.root, relPath), text);
  };
  // Project files that point out (`extends`, `use`, `replace`, a path dependency) or link out.
  write('tsconfig.json', '{ "extends": "../outside/tsconfig.base.json" }');
  write('app.ts', 'import { helper } from "@/util";\nexport function appOnlyMarker(): number { return helper(); }\n');
  write('src/util.ts', 'export function helper(): number { return 1; }\n');
  write('linked/tsconfig.json.keep', '');
  symlinkSync(outsideFiles.tsconfig, path.join(workspace.root, 'linked', 'tsconfig.json'));
  write('linked/main.ts', 'import { x } from "@/util";\n');
  write('go.work', 'go 1.21\nuse (\n  .\n  ../outside\n)\n');
  write('go.mod', 'module example.com/ws\nreplace example.com/outside => ../outside\n');
  write('main.go', 'package main\nimport "example.com/outside/pkg"\nfunc main() { pkg.Run() }\n');
  write('Cargo.toml', '[package]\nname = "ws"\n[dependencies]\noutside = { path = "../outside" }\n');
  write('src/lib.rs', 'use outside::thing;\npub fn f() { thing() }\n');
  symlinkSync(outsideFiles.ignore, path.join(workspace.root, '.gitignore'));
  // FIFOs where project files and .gitignores are looked for: opening one to read blocks until a writer comes.
  for (const fifo of ['fifo_dir/.gitignore', 'fifo_dir/tsconfig.json', 'fifo_dir/package.json', 'fifo_dir/go.mod', 'fifo_dir/Cargo.toml']) {
    mkdirSync(path.dirname(path.join(workspace.root, fifo)), { recursive: true });
    execFileSync('mkfifo', [path.join(workspace.root, fifo)]);
  }
  write('fifo_dir/index.ts', 'import { y } from "@/util";\nimport z from "pkg";\n');
  write('fifo_dir/src/main.rs', 'use crate::a;\n');
  write('fifo_dir/m.go', 'package m\nimport "example.com/ws/x"\n');
  const atime = atimeWorks(path.join(workspace.dir, 'tiny.gguf'));
  Object.values(outsideFiles).forEach(markUnread);

  const { client, log } = await audited(tinyModelSettings(workspace.modelPath, { policy: 'full' }));
  const docUri = workspace.uri('fifo_dir/opened.ts');
  client.notify('textDocument/didOpen', { textDocument: { uri: docUri, languageId: 'typescript', version: 1, text: 'import { y } from "@/util";\nconst v = y' } });
  const completion = await complete(client, docUri, { line: 1, character: 'const v = y'.length }, 30_000);
  expect(completion.trace?.outcome).toBe('ok');
  // The outside .gitignore was not read, so its rule (app.ts) did not apply: app.ts is retrieved.
  const useUri = workspace.uri('use_app.ts');
  client.notify('textDocument/didOpen', { textDocument: { uri: useUri, languageId: 'typescript', version: 1, text: 'const n = appOnlyMarker(' } });
  const useApp = await complete(client, useUri, { line: 0, character: 'const n = appOnlyMarker('.length }, 30_000);
  expect(useApp.trace?.candidates.map((c) => c.relPath)).toContain('app.ts');

  await client.within('shutdown', client.request('shutdown').answer);
  client.notify('exit');
  await client.exited;
  if (atime) for (const file of Object.values(outsideFiles)) expect(wasRead(file), file).toBe(false);
  if (log) {
    const { opened } = readStraceLog(log);
    expect(opened.filter((p) => p.startsWith(outside))).toEqual([]);
    expect(opened.some((p) => p === path.join(workspace.root, 'tsconfig.json'))).toBe(true); // the audit saw project files being read
  }
}, 120_000);

test('no workspace code is executed: setup.py, conftest.py, sitecustomize.py, a .pth file, __init__.py, noxfile.py', async () => {
  const markers = path.join(workspace.dir, 'markers');
  mkdirSync(markers);
  const payload = (name: string) => `import pathlib\npathlib.Path(${JSON.stringify(path.join(markers, name))}).write_text("executed")\n`;
  for (const name of ['setup.py', 'conftest.py', 'sitecustomize.py', 'usercustomize.py', 'noxfile.py', 'manage.py', 'pkg/__init__.py', 'pkg/__main__.py']) {
    workspace.write(name, payload(name.replace('/', '_')));
  }
  workspace.write('evil.pth', `import os; ${payload('pth').replace(/\n/g, '; ')}`);
  workspace.write('pyproject.toml', '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n');
  workspace.write('Makefile', `all:\n\ttouch ${path.join(markers, 'make')}\n`);

  const { client, log } = await audited(tinyModelSettings(workspace.modelPath, { policy: 'full' }));
  openDocument(client, workspace.uri('setup.py'), payload('setup.py'));
  await complete(client, workspace.uri('setup.py'), { line: 1, character: 0 });
  touch(client, workspace.probeUri, 2);
  await complete(client, workspace.probeUri);
  await client.within('shutdown', client.request('shutdown').answer);
  client.notify('exit');
  await client.exited;
  expect(readdirSync(markers)).toEqual([]);
  if (log) {
    // node itself (started by strace), the model host that runs llama.cpp (our own script), and
    // node-llama-cpp checking its prebuilt binary in a child node.
    const allowed = [`"${MAIN_JS}"`, 'dist/server/src/model/childProcess/modelHost.js', 'node-llama-cpp/dist/bindings/utils/testBindingBinary.js'];
    const { executed } = readStraceLog(log);
    expect(executed.length).toBeGreaterThan(0);
    for (const call of executed) {
      expect(call.startsWith(`"${process.execPath}"`), call).toBe(true);
      expect(allowed.some((script) => call.includes(script)), call).toBe(true);
    }
  }
});

test('settings cannot make the server open network connections: a URL modelPath is refused as one', async () => {
  const { client, log } = await audited(tinyModelSettings('http://127.0.0.1:9/model.gguf'));
  for (const [version, modelPath] of ['https://example.invalid/model.gguf', 'hf:someone/some-model', 'http://[::1]:9/m.gguf', 'ftp://127.0.0.1/m.gguf'].entries()) {
    client.configuration = tinyModelSettings(modelPath);
    client.notify('workspace/didChangeConfiguration', { settings: { reposhapley: client.configuration } });
    touch(client, workspace.probeUri, version + 2);
    expect(await complete(client, workspace.probeUri)).toEqual({ items: [], trace: null });
  }
  expect(shownMessages(client).some((m) => m.includes('"http://127.0.0.1:9/model.gguf" is a URL'))).toBe(true);
  if (!log) {
    // Without strace: the server holds no inet socket now (a weaker, point-in-time witness).
    expect(inetSocketsOf(client.pid)).toEqual([]);
  }
  await client.within('shutdown', client.request('shutdown').answer);
  client.notify('exit');
  await client.exited;
  if (log) {
    const { socketFamilies, connects } = readStraceLog(log);
    expect(socketFamilies.filter((family) => /INET/.test(family))).toEqual([]);
    expect(connects.filter((c) => /AF_INET/.test(c))).toEqual([]);
  }
});

/** Inodes of the TCP/UDP sockets `pid` holds, from /proc (empty when it holds none). */
function inetSocketsOf(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const inet: string[] = [];
  for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) {
    const file = `/proc/${pid}/net/${table}`;
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const inode = line.trim().split(/\s+/)[9];
      if (inode && inodes.has(inode)) inet.push(`${table}:${inode}`);
    }
  }
  return inet;
}
