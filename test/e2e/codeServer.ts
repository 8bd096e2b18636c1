/**
 * A real VS Code for end-to-end tests: code-server (installed by
 * ../shared/tools/install-code-server.sh) with its own extensions and user-data folders, so a
 * run never touches anyone's VS Code profile.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { CODE_SERVER_ENTRY } from './e2eEnv.js';

/** The folders one code-server instance owns. */
export interface CodeServerDirs {
  extensionsDir: string;
  userDataDir: string;
}

/**
 * User settings that keep the workbench quiet and predictable: no welcome page, no
 * recommendations or tips, and no word-based suggestion widget (Tab would accept its item
 * instead of the ghost text).
 */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' },
  'editor.wordBasedSuggestions': 'off',
  'editor.suggestOnTriggerCharacters': false,
  'editor.inlineSuggest.enabled': true,
};

/** Installs a .vsix into `dirs` with code-server's own CLI; throws with its output on failure. */
export function installExtension(vsix: string, dirs: CodeServerDirs): string {
  mkdirSync(path.join(dirs.userDataDir, 'User'), { recursive: true });
  writeFileSync(path.join(dirs.userDataDir, 'User', 'settings.json'), `${JSON.stringify(USER_SETTINGS, null, 2)}\n`);
  const result = spawnSync(process.execPath, [
    CODE_SERVER_ENTRY, '--extensions-dir', dirs.extensionsDir, '--user-data-dir', dirs.userDataDir, '--install-extension', vsix,
  ], { encoding: 'utf8', timeout: 180_000 });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0 || !/successfully installed/i.test(output)) throw new Error(`installing ${vsix} failed (${result.status}):\n${output}`);
  return output;
}

/** A running code-server. */
export interface CodeServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts code-server on a free loopback port with `workspace` open; resolves once it answers HTTP. */
export async function startCodeServer(workspace: string, dirs: CodeServerDirs, logFile: string): Promise<CodeServer> {
  const port = await freePort();
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, [
    CODE_SERVER_ENTRY, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--extensions-dir', dirs.extensionsDir, '--user-data-dir', dirs.userDataDir, workspace,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/`;
  await waitForHttp(url, 60_000, exited);
  return {
    url,
    process: child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForHttp(url: string, timeoutMs: number, exited: Promise<void>): Promise<void> {
  let gone = false;
  void exited.then(() => { gone = true; });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error('code-server exited during start-up (see its log in test/e2e/artifacts)');
    try {
      const response = await fetch(`${url}healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`code-server did not answer at ${url} within ${timeoutMs} ms`);
}

/** The extension host's log files whose name contains `name` (VS Code writes output channels there). */
export function findLogs(userDataDir: string, name: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.includes(name) && statSync(full).size > 0) found.push(full);
    }
  };
  try {
    walk(path.join(userDataDir, 'logs'));
  } catch {
    // no logs yet
  }
  return found;
}

/** Process ids whose command line contains `needle` (to find the one server this test started). */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}
