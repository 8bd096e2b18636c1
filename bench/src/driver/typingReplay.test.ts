import { expect, test } from 'vitest';
import { CURSOR_REST_MS } from '../../../shared/messages.js';
import type { BenchTask } from '../tasks/types.js';
import type { InlineAnswer } from './serverSession.js';
import { advance, keystrokesOf, typeKeys, type TypingSession } from './typingReplay.js';

test.each([
  ['return value', 12, ['r', 'e', 't', 'u', 'r', 'n']],
  ['return value', 3, ['r', 'e', 't']],
  ['ab', 12, ['a']],
  ['a', 12, []],
  ['', 12, []],
  // One keystroke per code point: the emoji is one key and is never split into surrogates.
  ['😀😀x😀', 12, ['😀', '😀']],
])('keystrokesOf(%j, %d)', (target, max, expected) => {
  expect(keystrokesOf(target, max)).toEqual(expected);
});

test('the cursor advances in UTF-16 units and moves to the next line on a newline', () => {
  expect(advance({ line: 3, character: 4 }, 'x')).toEqual({ line: 3, character: 5 });
  expect(advance({ line: 3, character: 4 }, '😀')).toEqual({ line: 3, character: 6 });
  expect(advance({ line: 3, character: 4 }, '\n')).toEqual({ line: 4, character: 0 });
});

/** A session that logs what the replay sends and answers every request after `answerMs`. */
function fakeSession(answerMs: number) {
  const events: string[] = [];
  const session: TypingSession = {
    async insert(_uri, version, at, text) {
      events.push(`insert v${version} ${at.line}:${at.character} ${text}`);
    },
    async cursorRested(_uri, at) {
      events.push(`cursor ${at.line}:${at.character}`);
    },
    requestInline(_uri, at) {
      events.push(`request ${at.line}:${at.character}`);
      const answer = new Promise<InlineAnswer>((resolve) => setTimeout(() => {
        events.push(`answer ${at.line}:${at.character}`);
        resolve({ text: 'x', latencyMs: answerMs });
      }, answerMs));
      return { answer, cancel: () => events.push('cancel') };
    },
  };
  return { session, events };
}

const task = { id: 'pkg/a.py:3:5:line', relPath: 'a.py', cursor: { line: 2, character: 4 }, mode: 'line' } as BenchTask;
const quick = { gapMinMs: 0, gapMaxMs: 0, maxKeystrokes: 12, seed: 1 };
const limits = { requestTimeoutMs: 5_000 };

test('default arrival: a request at the cursor, awaited, before the first key', async () => {
  const { session, events } = fakeSession(5);
  const steps = await typeKeys(session, 'file:///a.py', task, ['a', 'b'], limits, quick);
  await Promise.all(steps.map((step) => step.answer));
  expect(steps).toHaveLength(3);
  expect(events.slice(0, 3)).toEqual(['request 2:4', 'answer 2:4', 'insert v2 2:4 a']);
  expect(events).not.toContain('cursor 2:4');
});

test('VS Code arrival: the cursor reported at rest, no request before the first key, its answer awaited', async () => {
  const { session, events } = fakeSession(5);
  const steps = await typeKeys(session, 'file:///a.py', task, ['a', 'b'], limits, { ...quick, pauseMs: CURSOR_REST_MS + 20 });
  await Promise.all(steps.map((step) => step.answer));
  expect(steps.map((step) => step.at)).toEqual([{ line: 2, character: 5 }, { line: 2, character: 6 }]);
  expect(events.slice(0, 5)).toEqual(['cursor 2:4', 'insert v2 2:4 a', 'request 2:5', 'answer 2:5', 'insert v3 2:5 b']);
});

test('VS Code arrival: a key sooner than the client\'s rest time is typing, so no cursor is reported', async () => {
  const { session, events } = fakeSession(1);
  await typeKeys(session, 'file:///a.py', task, ['a'], limits, { ...quick, pauseMs: 10 });
  expect(events.slice(0, 2)).toEqual(['insert v2 2:4 a', 'request 2:5']);
  expect(events.some((event) => event.startsWith('cursor'))).toBe(false);
});

test('VS Code arrival with nothing to type: the request goes to the cursor after the pause', async () => {
  const { session, events } = fakeSession(1);
  const steps = await typeKeys(session, 'file:///a.py', task, [], limits, { ...quick, pauseMs: CURSOR_REST_MS });
  expect(steps).toHaveLength(1);
  expect(events).toEqual(['cursor 2:4', 'request 2:4', 'answer 2:4']);
});

test('jump arrival: a request in the function before, answered, then the request at the cursor is the arrival', async () => {
  const { session, events } = fakeSession(5);
  const inSecond = {
    ...task, prefix: 'def first():\n    return 1\n\ndef second():\n    ', suffix: 'pass\n', cursor: { line: 4, character: 4 },
  } as BenchTask;
  const steps = await typeKeys(session, 'file:///a.py', inSecond, ['a'], limits, { ...quick, jump: true });
  await Promise.all(steps.map((step) => step.answer));
  expect(steps).toHaveLength(2);
  expect(steps[0]!.at).toEqual({ line: 4, character: 4 });
  expect(steps[0]!.jumpedFrom).toEqual({ line: 1, character: 12 });
  expect(events.slice(0, 5)).toEqual(['request 1:12', 'answer 1:12', 'request 4:4', 'answer 4:4', 'insert v2 4:4 a']);
});
