/**
 * One cold start as an editor meets it (issue 19): spawn the built language server over stdio,
 * initialize it on the workspace, open the file and ask for an inline completion at once (the
 * worst case: no time for the background prefill a resting cursor would give). The request waits
 * for indexing and the model's load like any other, so its answer is the first ghost text.
 *
 * The file is opened as a user typing at the cursor has it: the cursor's line ends at the cursor
 * (`cutLineRest`, the default). With the rest of the line left in place, an answer the line already
 * holds is trimmed as a repeat of the suffix, and the first "ghost text" would be empty.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { SettingsPatch } from '../../../shared/settings.js';
import { clampedOffset } from '../../../server/src/indexing/textEdits.js';
import type { Position } from '../tasks/types.js';
import { ServerSession } from './serverSession.js';

/** A first completion slower than this is a failure, not a figure. */
const ANSWER_TIMEOUT_MS = 120_000;

/** Where to complete: the file and a 0-based position, in a workspace root. */
export interface ColdStartTarget {
  root: string;
  file: string;
  position: Position;
}

/** One cold start; times in milliseconds from the spawn. */
export interface ColdStart {
  initializedMs: number;
  firstAnswerMs: number;
  text: string;
  outcome?: string;
  /** The model that answered, `(FALLBACK)` when the bundled one stood in. */
  model?: string;
  promptTokens?: number;
  generationMs?: number;
  /** What the cut removed from the cursor's line (the answer the file holds); undefined when the file opened whole. */
  lineRest?: string;
}

export interface ColdStartOptions {
  settings?: SettingsPatch;
  /** The server entry point; default the built server. */
  serverScript?: string;
  /** Append the server's debug log here. */
  logFile?: string;
  env?: NodeJS.ProcessEnv;
  /** Open the file with the cursor's line ending at the cursor (default true). */
  cutLineRest?: boolean;
}

export async function coldStart(target: ColdStartTarget, options: ColdStartOptions = {}): Promise<ColdStart> {
  const spawned = performance.now();
  const session = await ServerSession.start({
    root: target.root, settings: options.settings ?? {}, serverScript: options.serverScript, logFile: options.logFile, env: options.env,
  });
  try {
    const initializedMs = performance.now() - spawned;
    const uri = pathToFileURL(target.file).href;
    const file = await readFile(target.file, 'utf8');
    const opened = options.cutLineRest === false ? { text: file, rest: undefined } : withLineRestCut(file, target.position);
    await session.open(uri, opened.text);
    const { answer } = session.requestInline(uri, target.position, 'line', 1, ANSWER_TIMEOUT_MS);
    const { text: answered, traceId } = await answer;
    const firstAnswerMs = performance.now() - spawned;
    const trace = await session.trace(traceId);
    return {
      initializedMs, firstAnswerMs, text: answered, outcome: trace?.outcome,
      model: trace?.model ? `${trace.model.label}${trace.model.fallback ? ' (FALLBACK)' : ''}` : undefined,
      promptTokens: trace?.tokens.prompt, generationMs: trace?.timings.generationMs, lineRest: opened.rest,
    };
  } finally {
    await session.dispose();
  }
}

/** `text` with the rest of `position`'s line removed, and what was removed (the answer the file holds). */
export function withLineRestCut(text: string, position: Position): { text: string; rest: string } {
  const at = clampedOffset(text, position);
  let lineEnd = text.indexOf('\n', at);
  if (lineEnd === -1) lineEnd = text.length;
  if (lineEnd > at && text.charCodeAt(lineEnd - 1) === 13) lineEnd--; // the line's CR stays with its LF
  return { text: text.slice(0, at) + text.slice(lineEnd), rest: text.slice(at, lineEnd) };
}
