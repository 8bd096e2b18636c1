import { expect, test } from 'vitest';
import { generationStates } from './generationStates.js';

/** A reader whose "state" after a prompt is the prompt's tokens: states name their positions. */
const reader = {
  async statesAfter(prefix: readonly number[], steps: readonly (readonly number[])[]) {
    const states = [Float32Array.from(prefix)];
    let tokens = [...prefix];
    for (const step of steps) {
      tokens = [...tokens, ...step];
      states.push(Float32Array.from(tokens));
    }
    return states;
  },
};
const MID = 3;

test('a trigger read where the completion starts: its state predicts Y\'s first token', async () => {
  const { triggerState, states } = await generationStates(reader, [1, 2, MID], [1, 2, MID], [7, 8, 9]);
  expect([...triggerState]).toEqual([1, 2, MID]);
  // One state per token of Y, each after the tokens before it.
  expect(states.map((s) => [...s])).toEqual([[1, 2, MID], [1, 2, MID, 7], [1, 2, MID, 7, 8]]);
});

test('a trigger read at the end of the suffix: <|fim_middle|> comes first, then Y', async () => {
  const { triggerState, states } = await generationStates(reader, [1, 2], [1, 2, MID], [7, 8]);
  expect([...triggerState]).toEqual([1, 2]);
  expect(states.map((s) => [...s])).toEqual([[1, 2, MID], [1, 2, MID, 7]]);
});

test('a generation prompt that does not continue the trigger is refused', async () => {
  await expect(generationStates(reader, [1, 5], [1, 2, MID], [7])).rejects.toThrow(/does not continue the trigger/);
});
