import { expect, test } from 'vitest';
import { jumpOrigin } from './jumpOrigin.js';

const FILE = `import os


def first(a):
    return a + 1


@decorator
def second(b):
    x = b
    return x


class Box:
    def get(self):
        return self.value

    def put(self, value):
        self.value = value
`;

function at(line: number, character: number) {
  const lines = FILE.split('\n');
  const offset = lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0) + character;
  return { prefix: FILE.slice(0, offset), suffix: FILE.slice(offset), cursor: { line, character } };
}

test('from inside a function, the jump starts at the end of the function before it', () => {
  expect(jumpOrigin(at(10, 8))).toEqual({ line: 4, character: '    return a + 1'.length });
  // Methods: the method before, within the class.
  expect(jumpOrigin(at(18, 8))).toEqual({ line: 15, character: '        return self.value'.length });
});

test('in the first function, the jump starts at the function after it; with none, there is no jump', () => {
  expect(jumpOrigin(at(4, 4))).toEqual({ line: 8, character: 'def second(b):'.length });
  expect(jumpOrigin({ prefix: 'def only():\n    ', suffix: 'pass\n', cursor: { line: 1, character: 4 } })).toBeUndefined();
  expect(jumpOrigin({ prefix: 'x = ', suffix: '1\n', cursor: { line: 0, character: 4 } })).toBeUndefined();
});
