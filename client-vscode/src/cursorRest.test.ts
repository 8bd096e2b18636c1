import { describe, expect, test } from 'vitest';
import { CursorRest, EDIT_QUIET_MS, REST_MS, type CursorAt } from './cursorRest.js';

/** Manual timers: `advance(ms)` runs what falls due. */
function manualTimers() {
  let now = 0;
  let next = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimeout: (run: () => void, ms: number) => { due.set(++next, { at: now + ms, run }); return next; },
    clearTimeout: (handle: unknown) => { due.delete(handle as number); },
    advance(ms: number) {
      now += ms;
      for (const [handle, timer] of [...due]) {
        if (timer.at <= now) {
          due.delete(handle);
          timer.run();
        }
      }
    },
  };
}

function setup() {
  const timers = manualTimers();
  const sent: CursorAt[] = [];
  return { rest: new CursorRest((at) => sent.push(at), timers), timers, sent };
}

const A = { uri: 'file:///a.py', line: 3, character: 4 };

describe('the cursor at rest', () => {
  test('is reported once it stood still, not while it moves', () => {
    const { rest, timers, sent } = setup();
    rest.moved({ ...A, line: 1 });
    timers.advance(REST_MS - 1);
    rest.moved(A);
    timers.advance(REST_MS - 1);
    expect(sent).toEqual([]);
    timers.advance(1);
    expect(sent).toEqual([A]);
  });

  test('a move right after an edit is typing, and is not reported; later ones are', () => {
    const { rest, timers, sent } = setup();
    rest.edited(A.uri);
    rest.moved({ ...A, character: 5 });
    timers.advance(REST_MS);
    expect(sent).toEqual([]);
    timers.advance(EDIT_QUIET_MS);
    rest.moved({ ...A, line: 9 });
    timers.advance(REST_MS);
    expect(sent).toEqual([{ ...A, line: 9 }]);
  });

  test('an edit in another document does not hide this one\'s jump, and the same place is not sent twice', () => {
    const { rest, timers, sent } = setup();
    rest.edited('file:///b.py');
    timers.advance(1);
    rest.moved(A);
    timers.advance(REST_MS);
    rest.moved(A);
    timers.advance(REST_MS);
    expect(sent).toEqual([A]);
  });

  test('dispose cancels what is pending', () => {
    const { rest, timers, sent } = setup();
    rest.moved(A);
    rest.dispose();
    timers.advance(REST_MS * 2);
    expect(sent).toEqual([]);
  });
});
