import { describe, expect, test } from 'vitest';
import type { FileEvent } from 'vscode-languageserver/node';
import {
  fromCompletionTriggerKind, fromInlineTriggerKind, fromLspEdits, fromLspFileEvents, fromLspPosition,
  isContentChange, isOpenableDocument, toAbortSignal, toLspRange, uriToPath,
} from './converters.js';

describe('fromLspPosition', () => {
  test.each<[unknown, ReturnType<typeof fromLspPosition>]>([
    [{ line: 2, character: 5 }, { line: 2, character: 5 }],
    [{ line: 0, character: 0 }, { line: 0, character: 0 }],
    [{ line: -1, character: 0 }, undefined],
    [{ line: 1.5, character: 0 }, undefined],
    [{ line: '1', character: 0 }, undefined],
    [{ line: 1 }, undefined],
    [null, undefined],
    ['1:2', undefined],
  ])('%j -> %j', (input, expected) => {
    expect(fromLspPosition(input)).toEqual(expected);
  });
});

test('toLspRange gives an empty range at the cursor by default', () => {
  expect(toLspRange({ line: 3, character: 4 })).toEqual({ start: { line: 3, character: 4 }, end: { line: 3, character: 4 } });
  expect(toLspRange({ line: 1, character: 0 }, { line: 2, character: 1 }).end).toEqual({ line: 2, character: 1 });
});

const RANGE = { start: { line: 0, character: 1 }, end: { line: 2, character: 0 } };

test.each<[unknown, boolean]>([
  [{ range: RANGE, text: 'x' }, true],
  [{ range: RANGE, rangeLength: 3, text: '' }, true],
  [{ text: 'whole' }, true],
  [{ range: { start: { line: 5, character: 9 }, end: { line: 0, character: 0 } }, text: 'reversed' }, true],
  [{ range: RANGE, text: 42 }, false],
  [{ range: RANGE }, false],
  [{ range: null, text: 'x' }, false],
  [{ range: { start: { line: -1, character: 0 }, end: RANGE.end }, text: 'x' }, false],
  [{ range: { start: { line: 0.5, character: 0 }, end: RANGE.end }, text: 'x' }, false],
  [{ range: { start: RANGE.start }, text: 'x' }, false],
  [{ range: RANGE, rangeLength: '3', text: 'x' }, false],
  [{ rangeLength: 3, text: 'x' }, false],
  [null, false],
  ['x', false],
])('isContentChange(%j) is %s', (change, expected) => {
  expect(isContentChange(change)).toBe(expected);
});

test.each<[unknown, boolean]>([
  [{ uri: 'file:///a.py', languageId: 'python', version: 1, text: '' }, true],
  [{ uri: 'untitled:1', text: 'x' }, true],
  [{ uri: 'file:///a.py', text: 42 }, false],
  [{ uri: 7, text: 'x' }, false],
  [{ text: 'x' }, false],
  [null, false],
])('isOpenableDocument(%j) is %s', (document, expected) => {
  expect(isOpenableDocument(document)).toBe(expected);
});

test('fromLspEdits keeps incremental ranges and full-text changes in order', () => {
  const range = { start: { line: 0, character: 1 }, end: { line: 0, character: 2 } };
  expect(fromLspEdits([{ range, text: 'x' }, { text: 'whole' }])).toEqual([{ range, text: 'x' }, { text: 'whole' }]);
});

test('fromLspFileEvents maps change types and drops unknown ones', () => {
  expect(fromLspFileEvents([
    { uri: 'file:///a.py', type: 1 }, { uri: 'file:///b.py', type: 2 }, { uri: 'file:///c.py', type: 3 },
    { uri: 'file:///d.py', type: 9 as 1 },
  ])).toEqual([
    { uri: 'file:///a.py', type: 'created' }, { uri: 'file:///b.py', type: 'changed' }, { uri: 'file:///c.py', type: 'deleted' },
  ]);
});

test('fromLspFileEvents drops malformed events (null, no uri, a type that is no number) and keeps the rest', () => {
  const events = [null, 7, { type: 1 }, { uri: 'file:///a.py', type: '1' }, { uri: 'file:///b.py', type: 2 }] as unknown as FileEvent[];
  expect(fromLspFileEvents(events)).toEqual([{ uri: 'file:///b.py', type: 'changed' }]);
});

test.each<[string, string | undefined]>([
  ['file:///home/u/proj', '/home/u/proj'],
  ['file:///home/u/my%20proj', '/home/u/my proj'],
  ['untitled:Untitled-1', undefined],
  ['file://remote-host/share', undefined],
])('uriToPath(%s)', (uri, expected) => {
  expect(uriToPath(uri)).toBe(expected);
});

test('trigger kinds: only "invoked" skips the debounce', () => {
  expect(fromInlineTriggerKind(1)).toBe('invoked');
  expect(fromInlineTriggerKind(2)).toBe('automatic');
  expect(fromInlineTriggerKind(undefined)).toBe('automatic');
  expect(fromCompletionTriggerKind(1)).toBe('invoked');
  expect(fromCompletionTriggerKind(2)).toBe('automatic');
  expect(fromCompletionTriggerKind(3)).toBe('automatic');
});

describe('toAbortSignal', () => {
  test('follows a later cancellation and stops following after dispose', () => {
    let listener: (() => void) | undefined;
    const token = {
      isCancellationRequested: false,
      onCancellationRequested: (l: () => void) => { listener = l; return { dispose: () => { listener = undefined; } }; },
    };
    const bridge = toAbortSignal(token);
    expect(bridge.signal.aborted).toBe(false);
    listener?.();
    expect(bridge.signal.aborted).toBe(true);
    bridge.dispose();
    expect(listener).toBeUndefined();
  });

  test('is aborted at once for an already cancelled token', () => {
    const token = { isCancellationRequested: true, onCancellationRequested: () => ({ dispose() {} }) };
    expect(toAbortSignal(token).signal.aborted).toBe(true);
  });
});
