/**
 * The --typing mode: what a user feels. The cursor arrives at the task (a jump: another function
 * or file) and a request is sent there; by default the user rests until its ghost text appears
 * (the time that takes is the arrival latency, `firstMs`), then types. The target's first
 * characters are typed one keystroke at a time with seeded, human-like gaps; after each keystroke
 * the client sends didChange and an automatic inline completion request (debounced by the server,
 * as in an editor), and cancels the previous request if it is still open, as VS Code does. The
 * request after the last keystroke is awaited: the user has paused and waits for ghost text.
 * Keystroke latencies and token reuse are those of the requests sent after keystrokes.
 *
 * With `pauseMs`, the arrival is VS Code's instead: VS Code asks for inline completions only when
 * the user types (a request on every cursor move was switched off upstream as annoying), so
 * nothing is asked at the cursor. The client reports the cursor at rest (`reposhapley/cursor`,
 * after CURSOR_REST_MS) and the server may prefill there; the user reads for `pauseMs` from the
 * jump, types the first key and waits for its ghost text (then `firstMs` is that key's answer).
 *
 * With `jump`, the arrival is a jump within the file: a request in the neighbouring function is
 * answered first (the user was working there), then the request at the cursor is the arrival.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { CURSOR_REST_MS, type CompletionTrace } from '../../../shared/messages.js';
import { DEFAULT_SETTINGS } from '../../../shared/settings.js';
import { scoreCompletion } from '../metrics/textMetrics.js';
import { strataRandom } from '../tasks/sampling.js';
import type { BenchTask, Position } from '../tasks/types.js';
import { jumpOrigin } from './jumpOrigin.js';
import type { ArmName, TaskResult, TypingStats } from './results.js';
import { bufferOf, traceOf, type RunLimits } from './runTask.js';
import type { InlineAnswer, ServerSession } from './serverSession.js';

/** How the typing is replayed. */
export interface TypingOptions {
  /** Gap between keystrokes, drawn uniformly from [min, max] ms. */
  gapMinMs: number;
  gapMaxMs: number;
  /** Characters typed at most (code points). */
  maxKeystrokes: number;
  /** Seeds the gaps; the same task gets the same gaps under every policy (paired). */
  seed: number;
  /**
   * The server's debounce for automatic requests (its `debounceMs` setting), taken out of the
   * keystroke-to-answer times: an answer from the completion cache or typed-through ghost text
   * never waits for it, every other answer does. Default: the settings' default.
   */
  debounceMs?: number;
  /**
   * Wait for the first answer at the cursor before typing (default true). False types at once,
   * cancelling it like any other request (the protocol of the runs before 2026-12-03).
   */
  rest?: boolean;
  /**
   * Arrive as in VS Code (see the module comment): the cursor reported at rest, then the first key
   * `pauseMs` after the jump, its ghost text awaited. Unset: a request at the cursor on arrival.
   */
  pauseMs?: number;
  /**
   * Arrive by a jump within the file (issue 19): the user was in the neighbouring function
   * ({@link jumpOrigin}), where a request was answered, then asks at the cursor (the arrival).
   */
  jump?: boolean;
}

/** Defaults: 30–120 ms between keys (a 100–400 characters-per-minute typist), 12 keys. */
export const DEFAULT_TYPING: TypingOptions = { gapMinMs: 30, gapMaxMs: 120, maxKeystrokes: 12, seed: 1 };

/** Trigger kind Automatic: typing, debounced by the server. */
const AUTOMATIC = 2;

/** One request while typing: what was sent and how it ended for the client. */
interface Step {
  at: Position;
  answer: Promise<InlineAnswer>;
  cancel: () => void;
  settled?: { answer?: InlineAnswer; error?: string };
  cancelled: boolean;
  /** On the arrival's step with `jump`: where the user jumped from. */
  jumpedFrom?: Position;
}

/** Replays the start of `task.target` keystroke by keystroke and records what the user saw. */
export async function runTypingTask(
  session: ServerSession, task: BenchTask, policy: ArmName, limits: RunLimits, options: TypingOptions,
): Promise<TaskResult> {
  const uri = pathToFileURL(task.absPath).href;
  const started = performance.now();
  await session.open(uri, bufferOf(task));
  const keys = keystrokesOf(task.target, options.maxKeystrokes);
  const steps = await typeKeys(session, uri, task, keys, limits, options);
  const last = steps[steps.length - 1]!;
  await Promise.allSettled(steps.map((step) => step.answer));
  if (!session.alive) throw new Error(`the server exited while typing ${task.id}; server log:\n${session.stderrTail()}`);
  const finalTrace = last.settled?.answer ? await traceOf(session, last.settled.answer, uri, last.at) : undefined;
  const typing = await typingStats(session, steps, keys.length, options.debounceMs ?? DEFAULT_SETTINGS.debounceMs);
  const origin = steps[0]?.jumpedFrom;
  if (origin) typing.jumpFromLine = origin.line;
  await session.close(uri);
  const remaining = task.target.slice(keys.join('').length);
  const completion = last.settled?.answer?.text ?? '';
  const result: TaskResult = {
    taskId: task.id, type: task.type, repository: task.repository, policy, completion, target: remaining,
    outcome: last.settled?.error ? (/timed out/.test(last.settled.error) ? 'timeout' : 'error') : completion ? 'ok' : 'empty',
    latencyMs: last.settled?.answer?.latencyMs ?? Number.NaN, cycleMs: performance.now() - started,
    scores: scoreCompletion(completion, remaining, task.relPath), typing,
  };
  if (last.settled?.error) result.error = last.settled.error;
  if (finalTrace) result.trace = finalTrace;
  return result;
}

/** What the replay needs of a server session. */
export type TypingSession = Pick<ServerSession, 'insert' | 'requestInline' | 'cursorRested'>;

/**
 * The arrival (a request at the cursor, or VS Code's rest, pause and first key), then a keystroke
 * + request per key; returns every step, the arrival's first.
 */
export async function typeKeys(
  session: TypingSession, uri: string, task: BenchTask, keys: readonly string[], limits: RunLimits, options: TypingOptions,
): Promise<Step[]> {
  const random = strataRandom(options.seed, 'typing', task.id);
  const arrival = options.pauseMs !== undefined ? await restThenType(session, uri, task, keys, limits, options.pauseMs)
    : options.jump ? await jumpThenAsk(session, uri, task, limits, options)
      : await askAtCursor(session, uri, task, limits, options);
  const steps = [arrival.step];
  let at = arrival.at;
  for (let i = arrival.typed; i < keys.length; i++) {
    await sleep(options.gapMinMs + random() * (options.gapMaxMs - options.gapMinMs));
    const previous = steps[steps.length - 1]!;
    if (!previous.settled) {
      previous.cancelled = true;
      previous.cancel();
    }
    await session.insert(uri, i + 2, at, keys[i]!);
    at = advance(at, keys[i]!);
    steps.push(request(session, uri, task, at, limits));
  }
  return steps;
}

/** The arrival's step, where the cursor is after it, and how many keys it typed. */
interface Arrival {
  step: Step;
  at: Position;
  typed: number;
}

/** A request at the cursor on arrival; awaited unless `rest` is false. */
async function askAtCursor(session: TypingSession, uri: string, task: BenchTask, limits: RunLimits, options: TypingOptions): Promise<Arrival> {
  const step = request(session, uri, task, task.cursor, limits);
  if (options.rest !== false) await step.answer.catch(() => undefined);
  return { step, at: task.cursor, typed: 0 };
}

/** A request in the neighbouring function, answered, then the arrival's request at the cursor. */
async function jumpThenAsk(session: TypingSession, uri: string, task: BenchTask, limits: RunLimits, options: TypingOptions): Promise<Arrival> {
  const origin = await jumpOrigin(task);
  if (!origin) return askAtCursor(session, uri, task, limits, options);
  await request(session, uri, task, origin, limits).answer.catch(() => undefined);
  const arrival = await askAtCursor(session, uri, task, limits, options);
  arrival.step.jumpedFrom = origin;
  return arrival;
}

/**
 * VS Code's arrival: the cursor reported once it has stood still (the client's rest time; a key
 * sooner is typing, never reported), the first key `pauseMs` after the jump, its answer awaited.
 * With nothing to type, the request goes to the cursor itself after the pause.
 */
async function restThenType(
  session: TypingSession, uri: string, task: BenchTask, keys: readonly string[], limits: RunLimits, pauseMs: number,
): Promise<Arrival> {
  if (pauseMs >= CURSOR_REST_MS) {
    await sleep(CURSOR_REST_MS);
    await session.cursorRested(uri, task.cursor);
    await sleep(pauseMs - CURSOR_REST_MS);
  } else {
    await sleep(pauseMs);
  }
  let at = task.cursor;
  if (keys.length > 0) {
    await session.insert(uri, 2, at, keys[0]!);
    at = advance(at, keys[0]!);
  }
  const step = request(session, uri, task, at, limits);
  await step.answer.catch(() => undefined);
  return { step, at, typed: Math.min(1, keys.length) };
}

function request(session: TypingSession, uri: string, task: BenchTask, at: Position, limits: RunLimits): Step {
  const { answer, cancel } = session.requestInline(uri, at, task.mode, AUTOMATIC, limits.requestTimeoutMs);
  const step: Step = { at, answer, cancel, cancelled: false };
  answer.then(
    (value) => { step.settled ??= { answer: value }; },
    (error: unknown) => { step.settled ??= { error: error instanceof Error ? error.message.split('\n', 1)[0] : String(error) }; },
  );
  return step;
}

/**
 * What is typed: the target's first half (so something is left to complete), at most `max`
 * characters; one keystroke per code point (an emoji is one key, not two UTF-16 units).
 */
export function keystrokesOf(target: string, max: number): string[] {
  const characters = [...target];
  return characters.slice(0, Math.min(max, Math.floor(characters.length / 2)));
}

/** The cursor after typing `key` at `at`. */
export function advance(at: Position, key: string): Position {
  return key === '\n' ? { line: at.line + 1, character: 0 } : { line: at.line, character: at.character + key.length };
}

/** Counts what the user saw; fetches each distinct answered trace once for token reuse. */
async function typingStats(session: ServerSession, steps: readonly Step[], keystrokes: number, debounceMs: number): Promise<TypingStats> {
  const stats: TypingStats = {
    keystrokes, requests: steps.length, cancelled: 0, shown: 0, empty: 0, cacheHits: 0,
    reusedTokens: 0, promptTokens: 0, settledLatencyMs: steps[steps.length - 1]?.settled?.answer?.latencyMs ?? Number.NaN,
    latenciesMs: [], keystrokeMs: [], modelKeystrokeMs: [], firstMs: steps[0]?.cancelled ? Number.NaN : steps[0]?.settled?.answer?.latencyMs ?? Number.NaN,
  };
  const traceIds = new Set<string>();
  for (const [index, step] of steps.entries()) {
    const answer = step.settled?.answer;
    if (step.cancelled) stats.cancelled++;
    if (!answer || step.cancelled) continue;
    stats.latenciesMs.push(answer.latencyMs);
    if (answer.text) stats.shown++;
    else stats.empty++;
    const reused = answer.traceId !== undefined && traceIds.has(answer.traceId);
    if (answer.traceId !== undefined) traceIds.add(answer.traceId);
    // The first request is the arrival (firstMs); what follows is typing.
    if (index === 0) {
      const trace = answer.traceId === undefined ? null : await session.trace(answer.traceId);
      if (trace) stats.arrivalTokens = { prompt: trace.tokens.prompt, reused: trace.tokens.reused };
      continue;
    }
    const keystrokeMs = reused ? answer.latencyMs : Math.max(0, answer.latencyMs - debounceMs);
    stats.keystrokeMs.push(keystrokeMs);
    if (answer.traceId === undefined) continue;
    if (reused) {
      stats.cacheHits++;
    } else {
      stats.modelKeystrokeMs!.push(keystrokeMs);
      addTokens(stats, await session.trace(answer.traceId));
    }
  }
  return stats;
}

function addTokens(stats: TypingStats, trace: CompletionTrace | null): void {
  if (!trace) return;
  stats.reusedTokens += trace.tokens.reused;
  stats.promptTokens += trace.tokens.prompt;
}
