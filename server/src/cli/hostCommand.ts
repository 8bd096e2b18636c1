/**
 * `reposhapley model hosts [--stop]`: the model processes this user's servers share (one per
 * model file and options; server/src/model/childProcess/), and stopping them to free their memory
 * now rather than after their idle time. A stopped host is started again by the next completion.
 */
import { listHosts, type RunningHost } from '../model/childProcess/hostConnection.js';
import { residentKiB } from '../util/processMemory.js';
import { EXIT_OK, type CliOutput } from './output.js';

export interface HostsOptions {
  stop?: boolean;
}

export interface HostsDeps {
  output: CliOutput;
  /** Defaults to the user's hosts folder. */
  directory?: string;
  /** Defaults to process.kill. */
  kill?: (pid: number, signal: NodeJS.Signals) => void;
}

export async function runModelHosts(options: HostsOptions, deps: HostsDeps): Promise<number> {
  const hosts = await listHosts(deps.directory);
  if (hosts.length === 0) {
    deps.output.err('no model host is running');
    return EXIT_OK;
  }
  const kill = deps.kill ?? ((pid, signal) => process.kill(pid, signal));
  for (const host of hosts) {
    if (options.stop) {
      kill(host.pid, 'SIGTERM');
      deps.output.out(`stopped ${describeHost(host, residentMegabytes(host.pid))}`);
    } else deps.output.out(describeHost(host, residentMegabytes(host.pid)));
  }
  return EXIT_OK;
}

/** `pid 123: MODEL, 2 servers connected, 905 MB resident (SOCKET)`; the memory where it is known. */
export function describeHost(host: RunningHost, residentMb: number | undefined): string {
  const servers = `${host.clients} server${host.clients === 1 ? '' : 's'} connected`;
  const memory = residentMb === undefined ? '' : `, ${residentMb} MB resident`;
  return `pid ${host.pid}: ${host.model ?? 'no model loaded yet'}, ${servers}${memory} (${host.socket})`;
}

/** A process's resident memory in MB, where the system says (Linux); `readStatus` as residentKiB's. */
export function residentMegabytes(pid: number, readStatus?: (file: string) => string): number | undefined {
  const kiB = residentKiB(pid, readStatus);
  return kiB === undefined ? undefined : Math.round(kiB / 1024);
}
