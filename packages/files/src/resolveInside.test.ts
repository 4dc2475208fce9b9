import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { realpathInside, resolveInside } from './pathsInside.js';
import { removeTestdirs, testdir } from './testing/index.js';

afterEach(removeTestdirs);

describe('resolveInside: the one realpath-inside rule', () => {
  it('names each case: inside with its real path, outside, missing, a loop', () => {
    const base = testdir({ root: { 'a.md': 'a\n', folder: {} }, away: { 'b.md': 'b\n' } });
    const root = path.join(base, 'root');
    fs.symlinkSync('a.md', path.join(root, 'link.md'));
    fs.symlinkSync('../away/b.md', path.join(root, 'out.md'));
    fs.symlinkSync('self.md', path.join(root, 'self.md'));
    expect(resolveInside(root, path.join(root, 'link.md'))).toEqual({ kind: 'inside', real: path.join(root, 'a.md') });
    expect(resolveInside(root, path.join(root, 'out.md'))).toEqual({ kind: 'outside' });
    expect(resolveInside(root, path.join(root, 'none.md'))).toEqual({ kind: 'missing' });
    expect(resolveInside(root, path.join(root, 'a.md', 'below'))).toEqual({ kind: 'missing' });
    expect(resolveInside(root, path.join(root, 'self.md'))).toEqual({ kind: 'loop' });
  });

  it('realpathInside refuses a loop as LINK_LOOP and a way out as PATH_OUTSIDE_ROOT, from the same rule', () => {
    const base = testdir({ root: {}, away: { 'b.md': 'b\n' } });
    const root = path.join(base, 'root');
    fs.symlinkSync('self.md', path.join(root, 'self.md'));
    fs.symlinkSync('../away/b.md', path.join(root, 'out.md'));
    expect(() => realpathInside(root, path.join(root, 'self.md'))).toThrow(expect.objectContaining({ code: 'LINK_LOOP' }));
    expect(() => realpathInside(root, path.join(root, 'out.md'))).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }));
    expect(realpathInside(root, path.join(root, 'none.md'))).toBeNull();
  });
});
