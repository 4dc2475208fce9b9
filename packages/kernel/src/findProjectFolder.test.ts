import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { findProjectFolder } from './findProjectFolder.js';

afterEach(removeTestdirs);

describe('findProjectFolder', () => {
  it('takes the nearest folder with .agents/ or .git, at or above the start', () => {
    const root = testdir({ repo: { '.git': {}, app: { '.agents': {}, src: {} }, lib: { deep: {} } }, loose: {} });
    expect(findProjectFolder(path.join(root, 'repo/app/src'), null)).toBe(path.join(root, 'repo/app'));
    expect(findProjectFolder(path.join(root, 'repo/lib/deep'), null)).toBe(path.join(root, 'repo'));
    expect(findProjectFolder(path.join(root, 'repo'), null)).toBe(path.join(root, 'repo'));
  });

  it('does not count a .agents file, nor the home folder with its own .agents', () => {
    const root = testdir({ home: { '.agents': { skills: {} }, work: { '.agents': 'not a folder' } } });
    expect(findProjectFolder(path.join(root, 'home/work'), path.join(root, 'home'))).toBeNull();
    expect(findProjectFolder(path.join(root, 'home/work'), null)).toBe(path.join(root, 'home'));
  });

  it('with the .agents marker alone, passes over a repository without .agents/', () => {
    const root = testdir({ outer: { '.agents': {}, repo: { '.git': {}, src: {} } } });
    expect(findProjectFolder(path.join(root, 'outer/repo/src'), null, 'project-folder')).toBe(path.join(root, 'outer'));
    expect(findProjectFolder(path.join(root, 'outer/repo/src'), null)).toBe(path.join(root, 'outer/repo'));
  });
});
