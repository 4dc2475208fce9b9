import fs from 'node:fs';
import path from 'node:path';
import { nodeFileReader } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pathInside, rootNames, withRootListing } from './pathInside.js';

afterEach(removeTestdirs);

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
