import { expect, test } from 'vitest';
import { jumpOrigin } from './jumpOrigin.js';

const PYTHON = `import os


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

const GO = `package shapes

// Area of a rectangle.
func Area(w, h int) int {
	return w * h
}

type Box struct{ w, h int }

func (b Box) Scale(k int) Box {
	return Box{b.w * k, b.h * k}
}
`;

const TYPESCRIPT = `export class Cache {
  get(key: string): number {
    return this.map.get(key) ?? 0;
  }

  put(key: string, value: number): void {
    this.map.set(key, value);
  }
}

export const clear = (cache: Cache): void => {
  cache.reset();
};
`;

function at(file: string, relPath: string, line: number, character: number) {
  const lines = file.split('\n');
  const offset = lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0) + character;
  return { prefix: file.slice(0, offset), suffix: file.slice(offset), cursor: { line, character }, relPath };
}

test('from inside a function, the jump starts at the end of the function before it', async () => {
  expect(await jumpOrigin(at(PYTHON, 'shapes.py', 10, 8))).toEqual({ line: 4, character: '    return a + 1'.length });
  // Methods: the method before, within the class.
  expect(await jumpOrigin(at(PYTHON, 'shapes.py', 18, 8))).toEqual({ line: 15, character: '        return self.value'.length });
});

test('in the first function, the jump starts at the function after it; with none, there is no jump', async () => {
  expect(await jumpOrigin(at(PYTHON, 'shapes.py', 4, 4))).toEqual({ line: 8, character: 'def second(b):'.length });
  expect(await jumpOrigin({ prefix: 'def only():\n    ', suffix: 'pass\n', cursor: { line: 1, character: 4 }, relPath: 'only.py' })).toBeUndefined();
  expect(await jumpOrigin({ prefix: 'x = ', suffix: '1\n', cursor: { line: 0, character: 4 }, relPath: 'x.py' })).toBeUndefined();
  expect(await jumpOrigin({ prefix: 'x = ', suffix: '1\n', cursor: { line: 0, character: 4 }, relPath: 'notes.txt' })).toBeUndefined();
});

test('every language: Go functions and methods, TypeScript methods and function values', async () => {
  // In the method Scale: the end of Area (its closing brace).
  expect(await jumpOrigin(at(GO, 'shapes.go', 10, 1))).toEqual({ line: 5, character: 1 });
  // In Area, the first function: the header of the one after it.
  expect(await jumpOrigin(at(GO, 'shapes.go', 4, 1))).toEqual({ line: 9, character: 'func (b Box) Scale(k int) Box {'.length });
  expect(await jumpOrigin(at(TYPESCRIPT, 'cache.ts', 6, 4))).toEqual({ line: 3, character: 3 });
  expect(await jumpOrigin(at(TYPESCRIPT, 'cache.ts', 11, 2))).toEqual({ line: 7, character: 3 });
});
