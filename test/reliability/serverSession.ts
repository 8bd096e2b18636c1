/**
 * A started, indexed server session for the fault and security tests: spawn, initialize with
 * settings, wait for the index, open documents, and complete with the trace of that completion.
 */
import { existsSync } from 'node:fs';
import type { TempWorkspace } from './fixtureWorkspace.js';
import { PROBE_POSITION, PROBE_PY } from './fixtureWorkspace.js';
import { RawLspClient, type SpawnOptions } from './rawLspClient.js';

/** A completion's answer and the trace the server recorded for it (null when none was made). */
export interface TracedCompletion {
  items: { insertText: string }[];
  trace: { outcome: string; candidates: { relPath: string }[]; prompt?: string; traceId: string } | null;
}

/** The server, initialized on `roots` with `settings`, indexed, with the probe document open. */
export async function startSession(
  workspace: TempWorkspace, settings: Record<string, unknown>, options: SpawnOptions & { roots?: string[] } = {},
): Promise<RawLspClient> {
  const client = RawLspClient.server({ ...options, env: { REPOSHAPLEY_LOG: 'info', ...options.env } });
  client.configuration = settings;
  await client.initialize(options.roots ?? workspace.root, settings);
  await client.waitIndexed();
  openDocument(client, workspace.probeUri, PROBE_PY);
  return client;
}

export function openDocument(client: RawLspClient, uri: string, text: string, version = 1): void {
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
}

/**
 * An invoked inline completion at `position` (the probe's by default) and, when the server made
 * a new trace for it, that trace. Callers change the document between calls, so no answer comes
 * from the completion cache.
 */
export async function complete(
  client: RawLspClient, uri: string, position = PROBE_POSITION, timeoutMs = 60_000,
): Promise<TracedCompletion> {
  const before = await latestTraceId(client, timeoutMs);
  const { answer } = client.request('textDocument/inlineCompletion', { textDocument: { uri }, position, context: { triggerKind: 1 } });
  const result = await client.within('completion', answer, timeoutMs);
  if (result.error) throw new Error(`completion answered an error: ${JSON.stringify(result.error)}`);
  const { answer: traced } = client.request('reposhapley/completionTrace', {});
  const trace = (await client.within('trace', traced, timeoutMs)).result as TracedCompletion['trace'];
  return { items: (result.result as { items: { insertText: string }[] }).items, trace: trace && trace.traceId !== before ? trace : null };
}

async function latestTraceId(client: RawLspClient, timeoutMs: number): Promise<string | undefined> {
  const { answer } = client.request('reposhapley/completionTrace', {});
  return ((await client.within('trace', answer, timeoutMs)).result as { traceId?: string } | null)?.traceId;
}

/** Appends a comment line at the end of a document (a position past the end is clamped there), so the next completion misses the cache. */
export function touch(client: RawLspClient, uri: string, version: number): void {
  const end = { line: 1_000_000, character: 0 };
  client.notify('textDocument/didChange', {
    textDocument: { uri, version }, contentChanges: [{ range: { start: end, end }, text: `\n# edit ${version}` }],
  });
}

/** `window/showMessage` texts the server sent. */
export function shownMessages(client: RawLspClient): string[] {
  return ((client.notifications.get('window/showMessage') ?? []) as { message: string }[]).map((m) => m.message);
}

/** Runs the server as user `nobody` when this process is root (so file modes matter), else as is. */
export function unprivileged(): string[] {
  return process.getuid?.() === 0 && existsSync('/usr/bin/setpriv') ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
}
