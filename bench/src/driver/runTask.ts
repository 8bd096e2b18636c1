/**
 * One task under the current policy: open the file WITHOUT the target (prefix + suffix), ask for
 * an inline completion at the cursor, fetch the trace, close. The disk file still has the
 * target; the server's index uses the open buffer instead.
 */
import { pathToFileURL } from 'node:url';
import type { CompletionTrace } from '../../../shared/messages.js';
import { calleeEvidence } from '../metrics/evidence.js';
import { scoreCompletion } from '../metrics/textMetrics.js';
import type { BenchTask, Position } from '../tasks/types.js';
import type { ArmName, TaskResult } from './results.js';
import type { InlineAnswer, ServerSession } from './serverSession.js';

/** Per-request limits. */
export interface RunLimits {
  /** Longest wait for one completion before it is cancelled and recorded as a timeout. */
  requestTimeoutMs: number;
}

/** Trigger kind Invoked: the bench asks explicitly, so the server does not debounce. */
const INVOKED = 1;

/** The buffer the server sees for a task: the file with the target cut out. */
export function bufferOf(task: Pick<BenchTask, 'prefix' | 'suffix'>): string {
  return task.prefix + task.suffix;
}

/** Runs `task` on `session`; a dead server is thrown, everything else is a result. */
export async function runTask(session: ServerSession, task: BenchTask, policy: ArmName, limits: RunLimits): Promise<TaskResult> {
  const uri = pathToFileURL(task.absPath).href;
  const started = performance.now();
  await session.open(uri, bufferOf(task));
  let answer: InlineAnswer | undefined;
  let error: string | undefined;
  try {
    answer = await session.requestInline(uri, task.cursor, task.mode, INVOKED, limits.requestTimeoutMs).answer;
  } catch (caught) {
    if (!session.alive) throw caught;
    error = caught instanceof Error ? caught.message.split('\n', 1)[0] : String(caught);
  }
  const trace = answer ? await traceOf(session, answer, uri, task.cursor) : undefined;
  await session.close(uri);
  const completion = answer?.text ?? '';
  const result: TaskResult = {
    taskId: task.id, type: task.type, repository: task.repository, policy, completion, target: task.target,
    outcome: error ? (/timed out/.test(error) ? 'timeout' : 'error') : completion.length > 0 ? 'ok' : 'empty',
    latencyMs: answer?.latencyMs ?? Number.NaN, cycleMs: performance.now() - started,
    scores: scoreCompletion(completion, task.target, task.relPath),
  };
  if (error) result.error = error;
  if (trace) result.trace = trace;
  const evidence = trace && calleeEvidence(task, trace);
  if (evidence) result.evidence = evidence;
  return result;
}

/**
 * The trace of `answer`: by its trace id, or (an empty answer carries none) the latest trace
 * when it is for this document and cursor and not already taken by an earlier request, so a
 * request that produced no trace (cancelled, no model, error) records none.
 */
export async function traceOf(session: ServerSession, answer: InlineAnswer, uri: string, at: Position): Promise<CompletionTrace | undefined> {
  const trace = await session.trace(answer.traceId);
  if (!trace) return undefined;
  const here = trace.uri === uri && trace.line === at.line && trace.character === at.character;
  if (!here || (answer.traceId === undefined && session.tracesSeen.has(trace.traceId))) return undefined;
  session.tracesSeen.add(trace.traceId);
  return trace;
}
