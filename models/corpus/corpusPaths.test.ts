import { expect, test } from 'vitest';
import { isTestPath, judgeCorpusPath } from './corpusPaths.js';

test.each([
  ['pip/_vendor/requests/api.py', false, 'vendored'],
  ['setuptools/_vendor/packaging/tags.py', false, 'vendored'],
  ['pkg_resources/extern/__init__.py', false, 'vendored'],
  ['setuptools/_distutils/_extern/x.py', false, 'vendored'],
  ['astropy/extern/ply/lex.py', false, 'vendored'],
  ['falcon/vendor/mimeparse/mimeparse.py', false, 'vendored'],
  ['pkg/vendored/six.py', false, 'vendored'],
  ['pkg/third_party/x.py', false, 'vendored'],
  ['django/contrib/auth/migrations/0001_initial.py', false, 'excluded-directory'],
  ['pkg/build/lib/x.py', false, 'excluded-directory'],
  ['test/test_os.py', true, 'stdlib-excluded'],
  ['idlelib/editor.py', true, 'stdlib-excluded'],
  ['_sysconfigdata__x86_64-linux-gnu.py', true, 'stdlib-excluded'],
  ['test/test_os.py', false, undefined],
  ['asyncio/events.py', true, undefined],
  ['django/utils/text.py', false, undefined],
  ['pkg/vendor.py', false, undefined],
  ['distutils/command/build.py', true, undefined],
])('%s (stdlib %s) -> %s', (path, stdlib, reason) => {
  expect(judgeCorpusPath(path, { stdlib })?.reason).toBe(reason);
});

test.each([
  ['pkg/tests/test_x.py', true],
  ['pkg/test_utils.py', true],
  ['pkg/x_test.py', true],
  ['pkg/conftest.py', true],
  ['pkg/testing/util.py', true],
  ['pkg/contest.py', false],
  ['pkg/attestation.py', false],
])('isTestPath(%s) is %s', (path, expected) => {
  expect(isTestPath(path)).toBe(expected);
});
