import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { physicalPath } from './SourceSkill.js';

afterEach(removeTestdirs);

describe('physicalPath', () => {
  it('37 L4 a link to a folder not made yet counts as where it leads', () => {
    const base = testdir({ project: { '.claude': {} } });
    const home = path.join(base, 'home');
    fs.symlinkSync(path.join(home, '.claude', 'skills'), path.join(base, 'project', '.claude', 'skills'));
    expect(physicalPath(path.join(base, 'project', '.claude', 'skills'))).toBe(path.join(home, '.claude', 'skills'));
    expect(physicalPath(path.join(base, 'project', '.claude', 'skills', 'notes'))).toBe(path.join(home, '.claude', 'skills', 'notes'));
    // A relative link, through a second link not made yet either.
    fs.symlinkSync('../elsewhere', path.join(base, 'project', 'hop'));
    fs.symlinkSync('project/hop', path.join(base, 'first'));
    expect(physicalPath(path.join(base, 'first', 'x'))).toBe(path.join(base, 'elsewhere', 'x'));
  });

  it('a loop of links ends', () => {
    const base = testdir({});
    fs.symlinkSync('b', path.join(base, 'a'));
    fs.symlinkSync('a', path.join(base, 'b'));
    expect(typeof physicalPath(path.join(base, 'a', 'skills'))).toBe('string');
  });
});
