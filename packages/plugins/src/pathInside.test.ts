import fs from 'node:fs';
import path from 'node:path';
import { nodeFileReader, realpathInside } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pathInside, rootNames, withRootListing } from './pathInside.js';

afterEach(removeTestdirs);

describe('pathInside follows the kernel’s realpath-inside rule', () => {
  it('a link loop is a loop for the plugins’ reader as for the documents’ reader, never a missing file', () => {
    const root = testdir({ 'plugin.json': '{}', skills: {} });
    fs.symlinkSync('.mcp.json', path.join(root, '.mcp.json'));
    expect(pathInside(root, '.mcp.json')).toEqual({ type: 'loop' });
    expect(() => realpathInside(root, path.join(root, '.mcp.json'))).toThrow(expect.objectContaining({ code: 'LINK_LOOP' }));
    expect(pathInside(root, 'plugin.json')).toEqual({ type: 'file', real: path.join(root, 'plugin.json') });
    expect(pathInside(root, 'skills')).toEqual({ type: 'folder', real: path.join(root, 'skills') });
    expect(pathInside(root, 'nothing.json')).toEqual({ type: 'missing' });
    expect(pathInside(root, '../escape')).toEqual({ type: 'outside' });
  });
});

describe('withRootListing', () => {
  it('answers a missing top-level name from the names it read, through the reader it hands only', () => {
    const root = testdir({ 'plugin.json': '{}', skills: { a: { 'SKILL.md': 'x' } } });
    const seen = withRootListing(root, nodeFileReader, (files) => {
      // Made after the listing: the reader it handed still answers from the names it read.
      fs.writeFileSync(path.join(root, 'late.json'), '{}');
      return {
        names: [...(rootNames(root, files) ?? [])].sort(),
        late: pathInside(root, 'late.json', files).type,
        lateDirect: pathInside(root, 'late.json').type,
        skill: pathInside(root, 'skills/a/SKILL.md', files).type,
        otherRoot: rootNames(path.join(root, 'skills'), files),
      };
    });
    expect(seen).toEqual({ names: ['plugin.json', 'skills'], late: 'missing', lateDirect: 'file', skill: 'file', otherRoot: null });
    // Nothing outlives the work: a reader made for one reading is not consulted by the next.
    expect(rootNames(root, nodeFileReader)).toBeNull();
    expect(pathInside(root, 'late.json').type).toBe('file');
  });
});
