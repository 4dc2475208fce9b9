import path from 'node:path';
import { gitRepo, removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { antigravityAdapter } from './antigravityAdapter.js';
import { claudeCodeAdapter } from './claudeCodeAdapter.js';

afterEach(() => removeTestdirs());

describe('claudeCodeAdapter', () => {
  it('personal skills first, then .claude/skills of the project and its parents up to the repository root, plugins namespaced', () => {
    const base = testdir({});
    const repo = gitRepo(path.join(base, 'repo'), { 'app/README.md': 'x' });
    const env = runtimeEnvironmentFrom({ HOME: path.join(base, 'home') });
    const roots = claudeCodeAdapter.discoveryRoots(path.join(repo, 'app'), env);
    expect(roots.map((root) => [path.relative(base, root.dir), root.scope, root.writes])).toEqual([
      ['home/.claude/skills', 'user', 'user'],
      ['repo/app/.claude/skills', 'project', 'project'],
      ['repo/.claude/skills', 'project', null],
      ['home/.claude/plugins', 'namespaced', null],
    ]);
    expect(claudeCodeAdapter.sameName).toBe('first-wins');
  });

  it('CLAUDE_CONFIG_DIR replaces ~/.claude for personal and plugin skills', () => {
    const roots = claudeCodeAdapter.discoveryRoots(null, runtimeEnvironmentFrom({ HOME: '/h', CLAUDE_CONFIG_DIR: '/cfg/claude' }));
    expect(roots.map((root) => root.dir)).toEqual(['/cfg/claude/skills', '/cfg/claude/plugins']);
  });
});

describe('antigravityAdapter', () => {
  it('is unverified and names no root to write into', () => {
    const roots = antigravityAdapter.discoveryRoots('/w/app', runtimeEnvironmentFrom({ HOME: '/h' }));
    expect(antigravityAdapter.verified).toBe(false);
    expect(roots.every((root) => root.writes === null)).toBe(true);
  });
});
