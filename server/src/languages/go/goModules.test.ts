import { describe, expect, test } from 'vitest';
import { joinModuleDir, readGoMod, readGoWork } from './goModules.js';

describe('readGoMod', () => {
  test('module path, local replacements in and out of blocks, comments and quotes', () => {
    const goMod = [
      '// Module shop sells things.',
      'module "example.com/shop" // quoted',
      'go 1.22',
      'require github.com/a/b v1.0.0',
      'replace github.com/a/b => ./forks/b',
      'replace (',
      '\tgithub.com/c/d v1.1.0 => ../d // sibling checkout',
      '\tgithub.com/e/f => github.com/e/g v1.0.0',
      '\tgithub.com/h/i => .',
      ')',
      'replace github.com/abs => /abs/path',
    ].join('\n');
    expect(readGoMod(goMod)).toEqual({
      modulePath: 'example.com/shop',
      replacements: [
        { modulePath: 'github.com/a/b', dir: './forks/b' },
        { modulePath: 'github.com/c/d', dir: '../d' },
        { modulePath: 'github.com/h/i', dir: '.' },
      ],
    });
  });

  test('a go.mod without a module line', () => {
    expect(readGoMod('go 1.21\n')).toEqual({ replacements: [] });
  });

  test('CRLF line ends', () => {
    expect(readGoMod('module example.com/win\r\n\r\ngo 1.21\r\n').modulePath).toBe('example.com/win');
  });
});

describe('readGoWork', () => {
  test('use lines and blocks', () => {
    expect(readGoWork('go 1.22\n\nuse ./a\nuse (\n\t./b // bee\n\t"./c d"\n)\ntoolchain go1.22.1\n')).toEqual(['./a', './b', './c d']);
  });
});

describe('joinModuleDir', () => {
  test.each([
    ['', './store', 'store'],
    ['', '.', ''],
    ['tools', '../third_party/x/', 'third_party/x'],
    ['', '../outside', undefined],
    ['a', '/abs', undefined],
    ['', 'C:\\src\\x', undefined],
  ])('%s + %s', (base, dir, joined) => {
    expect(joinModuleDir(base, dir)).toBe(joined);
  });
});
