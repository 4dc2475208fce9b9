import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { folderEntryInside, listFolderInside } from './listFolderInside.js';
import { removeTestdirs, testdir } from './testing/index.js';

afterEach(removeTestdirs);

/** A root with a folder `items` holding a bit of everything, and a folder outside the root. */
function tree() {
  const dir = testdir({
    root: { items: { 'b.md': 'b', a: { 'doc.md': 'a' }, '.hidden': 'h', '.staging': {}, 'C.md': 'c' }, inner: { 'x.md': 'x' } },
    outside: { 'secret.md': 's' },
  });
  const root = path.join(dir, 'root');
  const items = path.join(root, 'items');
  fs.symlinkSync('../inner', path.join(items, 'linked'));
  fs.symlinkSync('../../outside', path.join(items, 'escape'));
  fs.symlinkSync('nowhere', path.join(items, 'dangling'));
  return { dir, root, items };
}

describe('listFolderInside', () => {
  it('lists entries in name order, skipping hidden names and links to nothing, but names them all', () => {
    const { root, items } = tree();
    const listing = listFolderInside(root, items);
    expect(listing?.names).toEqual(['.hidden', '.staging', 'C.md', 'a', 'b.md', 'dangling', 'escape', 'linked']);
    expect(listing?.entries.map((entry) => entry.name)).toEqual(['C.md', 'a', 'b.md', 'escape', 'linked']);
  });

  it('follows a link inside the root and says where it leads', () => {
    const { root, items } = tree();
    const linked = listFolderInside(root, items)?.entries.find((entry) => entry.name === 'linked');
    expect(linked).toEqual({ name: 'linked', isDirectory: true, realPath: path.join(root, 'inner') });
    const plain = listFolderInside(root, items)?.entries.find((entry) => entry.name === 'a');
    expect(plain).toEqual({ name: 'a', isDirectory: true });
  });

  it('lists a link out of the root with its refusal, never as a folder', () => {
    const { root, items } = tree();
    const escape = listFolderInside(root, items)?.entries.find((entry) => entry.name === 'escape');
    expect(escape).toMatchObject({ isDirectory: false, refusal: { code: 'PATH_OUTSIDE_ROOT' } });
    expect(escape?.realPath).toBeUndefined();
  });

  it('is null for a missing folder or a file, and refuses a folder that is a link out of the root', () => {
    const { dir, root, items } = tree();
    expect(listFolderInside(root, path.join(root, 'missing'))).toBeNull();
    expect(listFolderInside(root, path.join(items, 'b.md'))).toBeNull();
    fs.symlinkSync('../outside', path.join(root, 'elsewhere'));
    expect(() => listFolderInside(root, path.join(root, 'elsewhere'))).toThrow(expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }));
    expect(listFolderInside(dir, path.join(root, 'elsewhere'))?.entries.map((entry) => entry.name)).toEqual(['secret.md']);
  });

  it('trusts the folder type a caller already read', () => {
    const { root, items } = tree();
    const type = fs.lstatSync(items);
    expect(listFolderInside(root, items, type)).toEqual(listFolderInside(root, items));
  });
});

describe('folderEntryInside', () => {
  it('reads one name exactly as the listing does', () => {
    const { root, items } = tree();
    const listed = listFolderInside(root, items)?.entries ?? [];
    for (const entry of listed) expect(folderEntryInside(root, items, entry.name)).toEqual(entry);
    expect(folderEntryInside(root, items, '.hidden')).toEqual({ name: '.hidden', isDirectory: false });
  });

  it('is null for a missing name, a link to nothing, or a folder that is a file', () => {
    const { root, items } = tree();
    expect(folderEntryInside(root, items, 'missing')).toBeNull();
    expect(folderEntryInside(root, items, 'dangling')).toBeNull();
    expect(folderEntryInside(root, path.join(items, 'b.md'), 'x')).toBeNull();
    expect(folderEntryInside(root, path.join(root, 'missing'), 'x')).toBeNull();
  });
});
