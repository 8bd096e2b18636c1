/**
 * Finds and starts the language server process. The .vsix carries the built server in
 * `server/` (scripts/stageServer.mjs); `reposhapley.serverPath` points at another build instead
 * (a clone's `dist/server/src/main.js`, or the package folder of `npm i -g`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../shared/nodeFlags.js';

/** Where the server's entry point is relative to a server package folder. */
const MAIN_IN_PACKAGE = path.join('dist', 'server', 'src', 'main.js');

/** The server's entry point, or why there is none. */
export type ServerLocation = { kind: 'ok'; main: string } | { kind: 'missing'; message: string };

/** The bundled server, or the one `reposhapley.serverPath` names (a main.js or its package folder). */
export function locateServer(extensionPath: string, serverPathSetting: string): ServerLocation {
  const configured = serverPathSetting.trim();
  if (configured) {
    const main = isDirectory(configured) ? path.join(configured, MAIN_IN_PACKAGE) : configured;
    if (existsSync(main)) return { kind: 'ok', main };
    return {
      kind: 'missing',
      message: `reposhapley.serverPath points at ${configured}, but there is no server at ${main}. ` +
        'Set it to a built server (run `npm ci && npm run build` in a RepoShapley clone and use its ' +
        `${MAIN_IN_PACKAGE}), or clear it to use the server bundled with the extension.`,
    };
  }
  const bundled = path.join(extensionPath, 'server', MAIN_IN_PACKAGE);
  if (existsSync(bundled)) return { kind: 'ok', main: bundled };
  return {
    kind: 'missing',
    message: `This build of the extension has no bundled server (${bundled}). Install a .vsix built with ` +
      '`npm run package`, or set reposhapley.serverPath to a built server.',
  };
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** How a server process ended. */
export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Starts `main serve --stdio` with the extension host's own Node.js (VS Code's Electron runs
 * as Node with ELECTRON_RUN_AS_NODE), so users need no separate Node install.
 */
export function spawnServer(main: string, onExit: (exit: ServerExit) => void): ChildProcess {
  const child = fork(main, ['serve', '--stdio'], {
    silent: true,
    execArgv: [...SERVER_NODE_FLAGS],
    cwd: path.dirname(main),
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
  child.once('exit', (code, signal) => onExit({ code, signal }));
  return child;
}

/** "exit code 1" / "killed by SIGKILL" for messages. */
export function describeExit(exit: ServerExit | undefined): string {
  if (!exit) return 'the connection closed';
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
}
