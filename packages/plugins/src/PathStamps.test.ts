import fs from 'node:fs';
import path from 'node:path';
import { readJsonInside } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PathStamps } from './PathStamps.js';

afterEach(removeTestdirs);

const RACY_MS = 30;
const pause = (ms = RACY_MS * 2) => new Promise((done) => setTimeout(done, ms));

/** A small reader of the sort a plugin layout is: a listing, a JSON file read inside the root, a lookup that finds nothing. */
function readTree(root: string): { names: string[]; manifest: unknown; extra: boolean } {
  return {
    names: fs.readdirSync(path.join(root, 'skills')).sort(),
    manifest: readJsonInside(root, path.join(root, '.claude-plugin', 'plugin.json')),
    extra: fs.existsSync(path.join(root, 'extra.json')),
  };
}

describe('PathStamps', () => {
  it('records every path the work looked at, and puts the file system back as it was', async () => {
    const root = testdir({ skills: { a: { 'SKILL.md': 'a' } }, '.claude-plugin': { 'plugin.json': '{"name":"p"}' } });
    const before = fs.readdirSync;
    await pause();
    const { value, stamps } = PathStamps.record(() => readTree(root), RACY_MS);
    expect(value).toEqual({ names: ['a'], manifest: { name: 'p' }, extra: false });
    expect(stamps).not.toBeNull();
    // skills/, the manifest (opened by its real path) and extra.json at least.
    expect(stamps?.size).toBeGreaterThanOrEqual(3);
    expect(fs.readdirSync).toBe(before);
    expect(stamps?.unchanged()).toBe(true);
  });

  it('puts the file system back when the work throws', () => {
    const before = fs.statSync;
    expect(() =>
      PathStamps.record(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(fs.statSync).toBe(before);
  });

  const changes: [string, (root: string) => void][] = [
    ['an edit of a file read, same size', (root) => fs.writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), '{"name":"q"}')],
    ['an entry added to a folder listed', (root) => fs.mkdirSync(path.join(root, 'skills', 'b'))],
    ['an entry removed from a folder listed', (root) => fs.rmSync(path.join(root, 'skills', 'a'), { recursive: true })],
    ['a file appearing where the work found none', (root) => fs.writeFileSync(path.join(root, 'extra.json'), '{}')],
    ['a file replaced by a rename over it', (root) => {
      fs.writeFileSync(path.join(root, 'next.json'), '{"name":"p"}');
      fs.renameSync(path.join(root, 'next.json'), path.join(root, '.claude-plugin', 'plugin.json'));
    }],
  ];
  for (const [change, make] of changes) {
    it(`says the work would read differently after ${change}`, async () => {
      const root = testdir({ skills: { a: { 'SKILL.md': 'a' } }, '.claude-plugin': { 'plugin.json': '{"name":"p"}' } });
      await pause();
      const { stamps } = PathStamps.record(() => readTree(root), RACY_MS);
      expect(stamps?.unchanged()).toBe(true);
      make(root);
      expect(stamps?.unchanged()).toBe(false);
    });
  }

  it('follows a link to its target: the target edited is a change', async () => {
    const root = testdir({ real: { 'plugin.json': '{"name":"p"}' } });
    fs.symlinkSync(path.join(root, 'real', 'plugin.json'), path.join(root, 'link.json'));
    await pause();
    const { stamps } = PathStamps.record(() => fs.statSync(path.join(root, 'link.json')), RACY_MS);
    expect(stamps?.unchanged()).toBe(true);
    fs.writeFileSync(path.join(root, 'real', 'plugin.json'), '{"name":"q"}');
    expect(stamps?.unchanged()).toBe(false);
  });

  it('keeps nothing read from a file changed too recently for its times to be trusted', () => {
    const root = testdir({ skills: {}, '.claude-plugin': { 'plugin.json': '{"name":"p"}' } });
    expect(PathStamps.record(() => readTree(root)).stamps).toBeNull();
  });
});
