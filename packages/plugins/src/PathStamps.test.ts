import fs from 'node:fs';
import path from 'node:path';
import { readJsonInside } from '@loadout/kernel';
import { type FileReader } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PathStamps } from './PathStamps.js';

afterEach(removeTestdirs);

const RACY_MS = 30;
const pause = (ms = RACY_MS * 2) => new Promise((done) => setTimeout(done, ms));

/** A small reader of the sort a plugin layout is: a listing, a JSON file read inside the root, a lookup that finds nothing. */
function readTree(root: string, files: FileReader): { names: string[]; manifest: unknown; extra: boolean } {
  let extra = true;
  try {
    files.lstat(path.join(root, 'extra.json'));
  } catch {
    extra = false;
  }
  return {
    names: files.readdir(path.join(root, 'skills')).sort(),
    manifest: readJsonInside(root, path.join(root, '.claude-plugin', 'plugin.json'), files),
    extra,
  };
}

describe('PathStamps', () => {
  it('records every path the work looked at through the reader it was handed, and changes nothing shared', async () => {
    const root = testdir({ skills: { a: { 'SKILL.md': 'a' } }, '.claude-plugin': { 'plugin.json': '{"name":"p"}' } });
    const calls = { readdirSync: fs.readdirSync, lstatSync: fs.lstatSync, openSync: fs.openSync };
    await pause();
    const { value, stamps } = PathStamps.record((files) => {
      // The module every other reader in the process uses is left as it is while the work runs.
      expect({ readdirSync: fs.readdirSync, lstatSync: fs.lstatSync, openSync: fs.openSync }).toEqual(calls);
      return readTree(root, files);
    }, RACY_MS);
    expect(value).toEqual({ names: ['a'], manifest: { name: 'p' }, extra: false });
    // extra.json (found missing), skills/ and the manifest: exactly the paths asked about.
    expect(stamps?.size).toBe(3);
    expect(stamps?.unchanged()).toBe(true);
  });

  it('lets a throw from the work through', () => {
    expect(() =>
      PathStamps.record(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
  });

  const changes: [string, (root: string) => void][] = [
    ['an edit of a file read, same size', (root) => fs.writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), '{"name":"q"}')],
    ['an entry added to a folder listed', (root) => fs.mkdirSync(path.join(root, 'skills', 'b'))],
    ['an entry removed from a folder listed', (root) => fs.rmSync(path.join(root, 'skills', 'a'), { recursive: true })],
    ['a file appearing where the work found none', (root) => fs.writeFileSync(path.join(root, 'extra.json'), '{}')],
    [
      'a file replaced by a rename over it',
      (root) => {
        fs.writeFileSync(path.join(root, 'next.json'), '{"name":"p"}');
        fs.renameSync(path.join(root, 'next.json'), path.join(root, '.claude-plugin', 'plugin.json'));
      },
    ],
  ];
  for (const [change, make] of changes) {
    it(`says the work would read differently after ${change}`, async () => {
      const root = testdir({ skills: { a: { 'SKILL.md': 'a' } }, '.claude-plugin': { 'plugin.json': '{"name":"p"}' } });
      await pause();
      const { stamps } = PathStamps.record((files) => readTree(root, files), RACY_MS);
      expect(stamps?.unchanged()).toBe(true);
      make(root);
      expect(stamps?.unchanged()).toBe(false);
    });
  }

  it('follows a link to its target: the target edited is a change', async () => {
    const root = testdir({ real: { 'plugin.json': '{"name":"p"}' } });
    fs.symlinkSync(path.join(root, 'real', 'plugin.json'), path.join(root, 'link.json'));
    await pause();
    const { stamps } = PathStamps.record((files) => files.stat(path.join(root, 'link.json')), RACY_MS);
    expect(stamps?.unchanged()).toBe(true);
    fs.writeFileSync(path.join(root, 'real', 'plugin.json'), '{"name":"q"}');
    expect(stamps?.unchanged()).toBe(false);
  });

  it('keeps nothing read from a file changed too recently for its times to be trusted', () => {
    const root = testdir({ skills: {}, '.claude-plugin': { 'plugin.json': '{"name":"p"}' } });
    expect(PathStamps.record((files) => readTree(root, files)).stamps).toBeNull();
  });
});
