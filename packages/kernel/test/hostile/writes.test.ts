import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWriteInside, ensurePrivateFolder, WriteRefusedError } from '@loadout/files';
import { writeFileInside } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { fifo, stopFifoWriters } from './support.js';

/** Hostile layouts against the kernel's writes and the data folder's modes. */

afterEach(() => {
  stopFifoWriters();
  removeTestdirs();
});

describe('hostile writes', () => {
  it('11.5 a write never goes through a link, in the root or out of it', () => {
    const outside = testdir({ 'target.sh': 'outside\n' });
    const root = testdir({ tasks: { t: { 'TASK.md': 'mine\n' }, other: { 'TASK.md': 'other\n' } } });
    fs.symlinkSync(path.join(outside, 'target.sh'), path.join(root, 'tasks/t/run.sh'));
    fs.symlinkSync('../other/TASK.md', path.join(root, 'tasks/t/LINKED.md'));
    fs.symlinkSync('other', path.join(root, 'tasks/via'));

    for (const target of ['tasks/t/run.sh', 'tasks/t/LINKED.md', 'tasks/via/new.md']) {
      expect(() => writeFileInside(root, path.join(root, target), 'changed\n'), target).toThrow(WriteRefusedError);
    }
    expect(() => writeFileInside(root, path.join(root, 'tasks/t/run.sh'), 'x')).toThrow(/tasks\/t\/run\.sh is a link/);
    expect(fs.readFileSync(path.join(outside, 'target.sh'), 'utf8')).toBe('outside\n');
    expect(fs.readFileSync(path.join(root, 'tasks/other/TASK.md'), 'utf8')).toBe('other\n');
    expect(fs.existsSync(path.join(root, 'tasks/other/new.md'))).toBe(false);

    writeFileInside(root, path.join(root, 'tasks/t/TASK.md'), 'edited\n');
    expect(fs.readFileSync(path.join(root, 'tasks/t/TASK.md'), 'utf8')).toBe('edited\n');
  });

  it('11.5 a write onto a FIFO or a folder, or outside the root, is refused before anything is written', () => {
    const root = testdir({ 'config.json': {} });
    fifo(path.join(root, 'pipe.md'), 'x');
    expect(() => writeFileInside(root, path.join(root, 'pipe.md'), 'x')).toThrow(/pipe\.md is a FIFO/);
    expect(() => writeFileInside(root, path.join(root, 'config.json'), '{}')).toThrow(/config\.json is a folder/);
    expect(() => writeFileInside(root, path.join(root, '../escape.md'), 'x')).toThrow(
      expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }),
    );
    expect(() => checkWriteInside(root, path.join(root, 'config.json'), { folder: true })).not.toThrow();
  });
});

describe('the data folder', () => {
  it('11.8 is made 0700, and an existing one open to others is narrowed', () => {
    const home = testdir({});
    const fresh = path.join(home, 'a/b/.loadout');
    ensurePrivateFolder(fresh);
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);

    const old = path.join(home, 'old');
    fs.mkdirSync(old, { mode: 0o755 });
    fs.chmodSync(old, 0o755);
    ensurePrivateFolder(old);
    expect(fs.statSync(old).mode & 0o777).toBe(0o700);
  });
});
