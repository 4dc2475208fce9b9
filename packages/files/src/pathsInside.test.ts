import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, isNormalAbsolute } from './pathsInside.js';

/** Steps of every kind a path may hold: plain, dotted, `..`-like names, empty (a doubled `/`). */
const STEPS = ['a', '.', '..', '', '.a', 'a.', '..a', 'a..', '...', ' ', 'é', 'a b'];

function samplePaths(): string[] {
  const paths = ['/', '//', 'a', 'a/b', './a'];
  for (const one of STEPS)
    for (const two of STEPS)
      for (const three of STEPS) paths.push(`/${one}/${two}`, `/${one}/${two}/${three}`, `/${one}/${two}/`, `${one}/${two}`);
  return paths;
}

describe('isNormalAbsolute', () => {
  it('takes a path as it is only where path.resolve would give it back unchanged', () => {
    const paths = samplePaths();
    for (const target of paths) if (isNormalAbsolute(target)) expect(path.resolve(target), target).toBe(target);
    // Not a vacuous check: the plan's usual paths are taken as they are.
    expect(isNormalAbsolute('/home/ada/.claude/skills/pdf')).toBe(true);
    expect(paths.filter(isNormalAbsolute).length).toBeGreaterThan(500);
  });
});

/** isInside as path.relative says it, the answer the prefix test must give wherever it is taken. */
function insideByRelative(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

describe('isInside', () => {
  it('answers for normal paths what path.relative answers, the root itself, children, `..`-named children and neighbours alike', () => {
    const roots = ['/', '/home/ada', '/home/ada/skills', '/home/a'];
    const targets = ['/', '/home', '/home/ada', '/home/adam', '/home/ada/skills/pdf', '/home/ada/..pdf', '/home/ada/.pdf', '/home/a/b'];
    for (const root of roots)
      for (const target of targets) expect(isInside(root, target), `${root} ${target}`).toBe(insideByRelative(root, target));
    expect(isInside('/home/ada', '/home/ada/skills/pdf')).toBe(true);
    expect(isInside('/home/ada', '/home/adam')).toBe(false);
    expect(isInside('/', '/home')).toBe(true);
  });

  it('answers the same for every pair of sampled paths, normal or not', () => {
    const absolute = samplePaths().filter((target) => target.startsWith('/'));
    const roots = absolute.filter((_, index) => index % 37 === 0);
    const differing: string[] = [];
    for (const root of roots)
      for (const target of absolute) if (isInside(root, target) !== insideByRelative(root, target)) differing.push(`${root} ${target}`);
    expect(differing).toEqual([]);
    expect(roots.length * absolute.length).toBeGreaterThan(10_000);
  });
});
