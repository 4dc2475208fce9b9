import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childPath } from './childPath.js';

describe('childPath', () => {
  it.each([
    ['/a/b', 'c'],
    ['/', 'c'],
    ['/a', ''],
    ['/a', '.'],
    ['/a', '..'],
    ['/a', 'b/c'],
    ['/a', '.hidden'],
    ['/a', '...'],
    ['/a', 'b\\c'],
    ['', 'c'],
  ])('is path.join(%j, %j)', (folder, name) => {
    expect(childPath(folder, name)).toBe(path.join(folder, name));
  });

  it('agrees with path.join for every normalized folder and any name', () => {
    const segment = fc.oneof(fc.constantFrom('.', '..', '...', '', 'a', 'SKILL.md', '.git', 'b/c', '/', '\\'), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), segment, (parts, name) => {
        const folder = path.resolve('/', ...parts);
        expect(childPath(folder, name)).toBe(path.join(folder, name));
      }),
      { numRuns: 3000 },
    );
  });
});
