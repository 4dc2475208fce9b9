import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import type { DocumentRead } from '@loadout/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BundleStamps,
  bundleFromStamps,
  flushWritten,
  hashBundle,
  readSkillBundle,
  type SkillBundle,
  writeBundle,
} from './SkillBundle.js';

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
    const one = hashBundle([
      { path: 'SKILL.md', content: Buffer.from('x') },
      { path: 'a.md', content: Buffer.from('y') },
    ]);
    expect(
      hashBundle([
        { path: 'SKILL.md', content: Buffer.from('x') },
        { path: 'b.md', content: Buffer.from('y') },
      ]),
    ).not.toBe(one);
    expect(
      hashBundle([
        { path: 'SKILL.md', content: Buffer.from('x') },
        { path: 'a.md', content: Buffer.from('z') },
      ]),
    ).not.toBe(one);
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

  it('refuses an entry that is neither a folder nor a regular file, by name, without waiting on it', () => {
    const root = testdir({});
    execFileSync('mkfifo', [path.join(root, 'pipe.md')]);
    expect(() => readSkillBundle(root, path.join(root, 'pipe.md'))).toThrow(expect.objectContaining({ code: 'NOT_A_FILE' }));
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

describe('flushWritten', () => {
  const bundle: SkillBundle = {
    hash: 'h',
    files: [{ path: 'SKILL.md', content: Buffer.from('x'), mode: 0o644 }],
    stamps: null,
    skillText: () => 'x',
  };

  it('resolves once the staged files are flushed, and resolves at once with nothing written', async () => {
    const staging = testdir({});
    const written = writeBundle(path.join(staging, 'a-0'), bundle);
    await expect(flushWritten([staging], written)).resolves.toBeUndefined();
    await expect(flushWritten([staging], [])).resolves.toBeUndefined();
    expect(fs.readFileSync(path.join(staging, 'a-0', 'SKILL.md'), 'utf8')).toBe('x');
  });

  it('without a `sync` command, flushes each file itself, and a file it cannot flush is an error', async () => {
    const staging = testdir({});
    const written = writeBundle(path.join(staging, 'a-0'), bundle);
    const saved = process.env.PATH;
    // An empty folder as the whole PATH: no `sync` to run.
    process.env.PATH = testdir({});
    try {
      await expect(flushWritten([staging], written)).resolves.toBeUndefined();
      await expect(flushWritten([staging], [...written, path.join(staging, 'gone')])).rejects.toThrow(
        expect.objectContaining({ code: 'ENOENT' }),
      );
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('bundle stamps', () => {
  /** A time after every change a test makes: every stamp is trusted. */
  const later = (): number => Date.now() + 60_000;
  /** Lets the file system's clock move on, so an edit right after a write gets new times. */
  const tick = (): Promise<void> => new Promise((done) => setTimeout(done, 20));

  it('are taken of the folder, each subfolder and each file, and only while none changed within the last second', () => {
    const root = testdir({ skill: { 'SKILL.md': 'x', ref: { 'a.md': 'a' } } });
    const entry = path.join(root, 'skill');
    expect(Object.keys(readSkillBundle(root, entry, later())?.stamps?.files ?? {}).sort()).toEqual(['', 'SKILL.md', 'ref', 'ref/a.md']);
    // Just written: too recent to trust.
    expect(readSkillBundle(root, entry)?.stamps).toBeNull();
  });

  it('are not taken of a bundle that holds a link, even one inside the root', () => {
    const root = testdir({ shared: { 'ref.md': 'shared' }, skill: { 'SKILL.md': 'x' } });
    fs.symlinkSync(path.join(root, 'shared', 'ref.md'), path.join(root, 'skill', 'ref.md'));
    expect(readSkillBundle(root, path.join(root, 'skill'), later())?.stamps).toBeNull();
  });

  it('stand for the bundle while every path keeps its stamp, and its files are read only when asked for', () => {
    const root = testdir({ skill: { 'SKILL.md': 'x', 'notes.md': 'n' } });
    const entry = path.join(root, 'skill');
    const read = readSkillBundle(root, entry, later());
    const known = bundleFromStamps(root, entry, read?.stamps as BundleStamps, later());
    expect(known?.hash).toBe(read?.hash);
    expect(known?.skillText()).toBe('x');
    expect(known?.files.map((file) => file.path)).toEqual(['SKILL.md', 'notes.md']);
  });

  it.each([
    [
      'an edit of the same size with its modification time set back',
      (entry: string) => {
        const before = fs.statSync(path.join(entry, 'notes.md'));
        fs.writeFileSync(path.join(entry, 'notes.md'), 'N');
        fs.utimesSync(path.join(entry, 'notes.md'), before.atime, before.mtime);
      },
    ],
    ['a file added', (entry: string) => fs.writeFileSync(path.join(entry, 'more.md'), 'm')],
    ['a file removed', (entry: string) => fs.rmSync(path.join(entry, 'notes.md'))],
    ['a file renamed', (entry: string) => fs.renameSync(path.join(entry, 'notes.md'), path.join(entry, 'NOTES.md'))],
    ['a file added in a subfolder', (entry: string) => fs.writeFileSync(path.join(entry, 'ref', 'b.md'), 'b')],
    [
      'a file replaced by a link to the same bytes',
      (entry: string) => {
        fs.writeFileSync(path.join(entry, '..', 'same.md'), 'n');
        fs.rmSync(path.join(entry, 'notes.md'));
        fs.symlinkSync(path.join(entry, '..', 'same.md'), path.join(entry, 'notes.md'));
      },
    ],
    [
      'the folder replaced by an identical one',
      (entry: string) => {
        fs.renameSync(entry, `${entry}-old`);
        fs.cpSync(`${entry}-old`, entry, { recursive: true });
      },
    ],
    ['the folder removed', (entry: string) => fs.rmSync(entry, { recursive: true })],
  ])('stop holding after %s', async (_what, change) => {
    const root = testdir({ skill: { 'SKILL.md': 'x', 'notes.md': 'n', ref: { 'a.md': 'a' } } });
    const entry = path.join(root, 'skill');
    const stamps = readSkillBundle(root, entry, later())?.stamps as BundleStamps;
    expect(bundleFromStamps(root, entry, stamps, later())).not.toBeNull();
    await tick();
    change(entry);
    expect(bundleFromStamps(root, entry, stamps, later())).toBeNull();
  });

  it('do not hold for a path changed within the last second, whatever it looks like', () => {
    const root = testdir({ skill: { 'SKILL.md': 'x' } });
    const entry = path.join(root, 'skill');
    const stamps = readSkillBundle(root, entry, later())?.stamps as BundleStamps;
    expect(bundleFromStamps(root, entry, stamps, Date.now() - 1000)).toBeNull();
  });

  it('a bundle known by its stamps that changes before its files are read refuses to be written', async () => {
    const root = testdir({ skill: { 'SKILL.md': 'x' } });
    const entry = path.join(root, 'skill');
    const known = bundleFromStamps(root, entry, readSkillBundle(root, entry, later())?.stamps as BundleStamps, later());
    await tick();
    fs.writeFileSync(path.join(entry, 'SKILL.md'), 'y');
    expect(() => known?.files).toThrow(expect.objectContaining({ code: 'RUNTIME_CHANGED_DURING_APPLY' }));
  });
});

describe('a bundle known by its stamps, with what the session scan read of its SKILL.md', () => {
  const later = (): number => Date.now() + 60_000;
  const tick = (): Promise<void> => new Promise((done) => setTimeout(done, 20));
  /** What a scan that read `file` keeps: the text it read (here: `text`, to tell it from the disk's) and the file's stats. */
  const scanOf = (file: string, text = fs.readFileSync(file, 'utf8')): DocumentRead => ({
    text,
    stats: fs.lstatSync(file),
    frontmatter: null,
  });

  it('takes the text the scan read while the file keeps the stamp the scan saw: it is not read again', () => {
    const root = testdir({ skill: { 'SKILL.md': 'on disk', 'notes.md': 'n' }, 'single.md': 'single on disk' });
    const entry = path.join(root, 'skill');
    const stamps = readSkillBundle(root, entry, later())?.stamps as BundleStamps;
    // A text unlike the disk's stands for the scan's read: the text given back is the scan's, so no second read made it.
    const known = bundleFromStamps(root, entry, stamps, later(), scanOf(path.join(entry, 'SKILL.md'), 'as scanned'));
    expect(known?.skillText()).toBe('as scanned');
    const single = path.join(root, 'single.md');
    const singleStamps = readSkillBundle(root, single, later())?.stamps as BundleStamps;
    expect(bundleFromStamps(root, single, singleStamps, later(), scanOf(single, 'single as scanned'))?.skillText()).toBe(
      'single as scanned',
    );
  });

  it('stands for what the scan saw when the SKILL.md changed after it: its files, read to be written, refuse', async () => {
    const root = testdir({ skill: { 'SKILL.md': 'before', 'notes.md': 'n' } });
    const entry = path.join(root, 'skill');
    const file = path.join(entry, 'SKILL.md');
    const kept = readSkillBundle(root, entry, later())?.stamps as BundleStamps;
    const scanned = scanOf(file);
    await tick();
    const before = fs.statSync(file);
    fs.writeFileSync(file, 'after!');
    fs.utimesSync(file, before.atime, before.mtime);
    const known = bundleFromStamps(root, entry, kept, later(), scanned);
    expect([known?.hash, known?.skillText()]).toEqual([kept.hash, 'before']);
    expect(() => known?.files).toThrow(expect.objectContaining({ code: 'RUNTIME_CHANGED_DURING_APPLY' }));
    // Without the scan, the edit is seen at once.
    expect(bundleFromStamps(root, entry, kept, later())).toBeNull();
  });

  it('checks and reads the SKILL.md again when the scan saw another stamp than the kept one', async () => {
    const root = testdir({ skill: { 'SKILL.md': 'before', 'notes.md': 'n' } });
    const entry = path.join(root, 'skill');
    const file = path.join(entry, 'SKILL.md');
    const scanned = scanOf(file);
    await tick();
    const before = fs.statSync(file);
    fs.writeFileSync(file, 'after!');
    fs.utimesSync(file, before.atime, before.mtime);
    // Stamps another command took since the edit hold, but not the scan's: the file is checked and read.
    const keptAfter = readSkillBundle(root, entry, later())?.stamps as BundleStamps;
    const known = bundleFromStamps(root, entry, keptAfter, later(), scanned);
    expect(known?.hash).toBe(
      hashBundle([
        { path: 'SKILL.md', content: Buffer.from('after!') },
        { path: 'notes.md', content: Buffer.from('n') },
      ]),
    );
    expect(known?.skillText()).toBe('after!');
  });
});
