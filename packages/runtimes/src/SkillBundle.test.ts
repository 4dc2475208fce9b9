import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { hashBundle, readSkillBundle, writeBundle } from './SkillBundle.js';

afterEach(() => removeTestdirs());

describe('readSkillBundle', () => {
  it('hashes every file by relative path and bytes, in path order, whatever the listing order', () => {
    const root = testdir({ a: { 'SKILL.md': 'x', scripts: { 'run.sh': 'echo' }, 'b.md': 'b' } });
    const bundle = readSkillBundle(root, path.join(root, 'a'));
    expect(bundle?.files.map((file) => file.path)).toEqual(['SKILL.md', 'b.md', 'scripts/run.sh']);
    const reordered = hashBundle([
      { path: 'scripts/run.sh', content: Buffer.from('echo') },
      { path: 'SKILL.md', content: Buffer.from('x') },
      { path: 'b.md', content: Buffer.from('b') },
    ]);
    expect(bundle?.hash).toBe(reordered);
  });

  it('a moved file or a changed byte is a different bundle', () => {
    const one = hashBundle([{ path: 'SKILL.md', content: Buffer.from('x') }, { path: 'a.md', content: Buffer.from('y') }]);
    expect(hashBundle([{ path: 'SKILL.md', content: Buffer.from('x') }, { path: 'b.md', content: Buffer.from('y') }])).not.toBe(one);
    expect(hashBundle([{ path: 'SKILL.md', content: Buffer.from('x') }, { path: 'a.md', content: Buffer.from('z') }])).not.toBe(one);
    // Path and content boundaries cannot be shifted into each other.
    expect(hashBundle([{ path: 'ab', content: Buffer.from('c') }])).not.toBe(hashBundle([{ path: 'a', content: Buffer.from('bc') }]));
  });

  it('a single-file skill is the bundle of one SKILL.md, the same as a folder holding that file', () => {
    const root = testdir({ 'notes.md': 'body', folder: { 'SKILL.md': 'body' } });
    expect(readSkillBundle(root, path.join(root, 'notes.md'))?.hash).toBe(readSkillBundle(root, path.join(root, 'folder'))?.hash);
  });

  it('follows links inside the root and refuses one that leads outside', () => {
    const outside = testdir({ 'secret.txt': 'nope' });
    const root = testdir({ shared: { 'ref.md': 'shared' }, skill: { 'SKILL.md': 'x' } });
    fs.symlinkSync(path.join(root, 'shared', 'ref.md'), path.join(root, 'skill', 'ref.md'));
    expect(readSkillBundle(root, path.join(root, 'skill'))?.files.map((file) => [file.path, file.content.toString()])).toEqual([
      ['SKILL.md', 'x'],
      ['ref.md', 'shared'],
    ]);
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'skill', 'leak.txt'));
    expect(() => readSkillBundle(root, path.join(root, 'skill'))).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }));
  });

  it('is null when the entry does not exist', () => {
    const root = testdir({});
    expect(readSkillBundle(root, path.join(root, 'missing'))).toBeNull();
  });
});

describe('writeBundle', () => {
  it('writes every file with its mode into a new folder, and refuses an existing one', () => {
    const root = testdir({ skill: { 'SKILL.md': 'x', scripts: { 'run.sh': '#!/bin/sh\n' } } });
    fs.chmodSync(path.join(root, 'skill', 'scripts', 'run.sh'), 0o755);
    const bundle = readSkillBundle(root, path.join(root, 'skill'));
    if (bundle === null) throw new Error('no bundle');
    const target = path.join(testdir({}), 'copy');
    writeBundle(target, bundle);
    expect(readSkillBundle(path.dirname(target), target)?.hash).toBe(bundle.hash);
    expect(fs.statSync(path.join(target, 'scripts', 'run.sh')).mode & 0o777).toBe(0o755);
    expect(() => writeBundle(target, bundle)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  });
});
