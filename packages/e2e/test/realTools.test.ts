import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { node22 } from './realTools.js';

describe('the cache of real tools', () => {
  it('gives a Node 22 installed from the npm registry, the same one to two callers at once', async () => {
    const [first, second] = await Promise.all([node22(), node22()]);
    expect(first).toBe(second);
    expect(execFileSync(first, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim()).toBe('22');
  }, 600_000);
});
