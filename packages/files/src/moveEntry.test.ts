import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type EntryMoves, moveEntry, nodeEntryMoves } from './moveEntry.js';
import { removeTestdirs, testdir } from './testing/index.js';

afterEach(removeTestdirs);

/** The real disk, but every rename of the source answers as a rename across two file systems does. */
function acrossFileSystems(source: string): EntryMoves {
  return {
    ...nodeEntryMoves,
    rename: (from, to) => {
      if (from === source) throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
      nodeEntryMoves.rename(from, to);
    },
  };
}

describe('moveEntry: the one mover', () => {
  it('renames within one file system', () => {
    const base = testdir({ from: { 'SKILL.md': 'x\n' } });
    expect(moveEntry(path.join(base, 'from'), path.join(base, 'to'))).toBe('renamed');
    expect(fs.readdirSync(base)).toEqual(['to']);
  });

  it('across file systems copies under a hidden name, renames it into place whole, links kept as links, then removes the source', () => {
    const base = testdir({ from: { 'SKILL.md': 'x\n', scripts: { 'run.sh': 'echo\n' } }, dest: {} });
    fs.symlinkSync('scripts/run.sh', path.join(base, 'from', 'link'));
    const source = path.join(base, 'from');
    const staged: string[][] = [];
    const how = moveEntry(source, path.join(base, 'dest', 'to'), {
      files: acrossFileSystems(source),
      onStaged: () => staged.push(fs.readdirSync(path.join(base, 'dest'))),
    });
    expect(how).toBe('copied');
    expect(staged).toEqual([[expect.stringMatching(/^\.loadout-move-/)]]);
    expect(fs.readdirSync(path.join(base, 'dest'))).toEqual(['to']);
    expect(fs.readlinkSync(path.join(base, 'dest', 'to', 'link'))).toBe('scripts/run.sh');
    expect(fs.existsSync(source)).toBe(false);
  });

  it('keepSource leaves the source for the caller; a copy that fails leaves no staging behind', () => {
    const base = testdir({ from: { 'a.md': 'a\n' }, dest: { to: {} } });
    const source = path.join(base, 'from');
    expect(() =>
      moveEntry(source, path.join(base, 'dest', 'to', 'a.md'), {
        files: {
          ...acrossFileSystems(source),
          copy: () => {
            throw new Error('disk full');
          },
        },
      }),
    ).toThrow('disk full');
    expect(fs.readdirSync(path.join(base, 'dest', 'to'))).toEqual([]);
    expect(moveEntry(source, path.join(base, 'dest', 'moved'), { files: acrossFileSystems(source), keepSource: true })).toBe('copied');
    expect(fs.existsSync(path.join(source, 'a.md'))).toBe(true);
  });
});
