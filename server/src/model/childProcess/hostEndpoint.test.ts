import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { LoadModelOptions } from '../completionModel.js';
import { HOST_DIR_VARIABLE, hostDirectory, hostEndpoint } from './hostEndpoint.js';

const BASE: LoadModelOptions = { path: '/models/a.gguf', threads: 2, gpuLayers: 0 };

describe('hostDirectory', () => {
  test('the override, else the runtime folder, else the cache', () => {
    expect(hostDirectory({ [HOST_DIR_VARIABLE]: '/tmp/h', XDG_RUNTIME_DIR: '/run/user/1' }, '/home/u')).toBe('/tmp/h');
    expect(hostDirectory({ XDG_RUNTIME_DIR: '/run/user/1' }, '/home/u')).toBe('/run/user/1/reposhapley');
    expect(hostDirectory({ XDG_RUNTIME_DIR: 'relative', XDG_CACHE_HOME: '/c' }, '/home/u')).toBe('/c/reposhapley/hosts');
    expect(hostDirectory({}, '/home/u')).toBe('/home/u/.cache/reposhapley/hosts');
  });
});

describe('hostEndpoint', () => {
  const socket = (options: LoadModelOptions, privateTo?: string) => hostEndpoint(options, '/run/h', '1', privateTo).socket;

  test('the same file and options share a host; how the server connects does not matter', () => {
    expect(socket(BASE)).toBe(socket({ ...BASE }));
    expect(socket({ ...BASE, host: { shared: true, idleSeconds: 10 }, hashPinned: true })).toBe(socket(BASE));
    expect(path.dirname(socket(BASE))).toBe('/run/h');
    expect(hostEndpoint(BASE, '/run/h', '1').log).toBe(socket(BASE).replace(/\.sock$/, '.log'));
  });

  test('another file, model option, version or a private host gets another', () => {
    const others = [
      socket({ ...BASE, path: '/models/b.gguf' }), socket({ ...BASE, threads: 1 }), socket({ ...BASE, adapterPath: '/a.gguf' }),
      socket({ ...BASE, contextSize: 2048 }), hostEndpoint(BASE, '/run/h', '2').socket, socket(BASE, 'server-1'), socket(BASE, 'server-2'),
    ];
    expect(new Set([socket(BASE), ...others]).size).toBe(others.length + 1);
  });

  test('a folder too deep for a socket path is refused with the fix', () => {
    expect(() => hostEndpoint(BASE, `/${'x'.repeat(120)}`, '1')).toThrow(/longer than sockets allow; set REPOSHAPLEY_MODEL_HOST_DIR/);
  });
});
