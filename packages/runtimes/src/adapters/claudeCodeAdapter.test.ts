import path from 'node:path';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { claudeCodeAdapter } from './claudeCodeAdapter.js';

afterEach(() => removeTestdirs());

const facts = { folderName: 'x', frontmatter: null, startsWithFence: false, skillFileIsLink: true };

describe('claudeCodeAdapter', () => {
  it('managed skills first, then personal, then .claude/skills of the project and its parents up to the repository root', () => {
    const base = testdir({});
    const repo = gitRepo(path.join(base, 'repo'), { 'app/README.md': 'x' });
    const env = runtimeEnvironmentFrom({ HOME: path.join(base, 'home'), LOADOUT_CLAUDE_MANAGED_DIR: path.join(base, 'etc-claude') });
    const roots = claudeCodeAdapter.discoveryRoots(path.join(repo, 'app'), env);
    expect(roots.map((root) => [path.relative(base, root.dir), root.scope, root.writes])).toEqual([
      ['etc-claude/.claude/skills', 'managed', null],
      ['home/.claude/skills', 'user', 'user'],
      ['repo/app/.claude/skills', 'project', 'project'],
      ['repo/.claude/skills', 'project', null],
      ['home/.claude/plugins', 'namespaced', null],
    ]);
    expect(claudeCodeAdapter.sameName).toBe('listed-first-runs');
    expect(claudeCodeAdapter.compiledIn?.names).toContain('claude-api');
  });

  it('outside a repository it reads parents up to, not including, the home folder', () => {
    const base = testdir({});
    const home = path.join(base, 'home');
    const roots = claudeCodeAdapter.discoveryRoots(path.join(home, 'work', 'app'), runtimeEnvironmentFrom({ HOME: home }));
    expect(roots.filter((root) => root.scope === 'project').map((root) => path.relative(base, root.dir))).toEqual([
      'home/work/app/.claude/skills',
      'home/work/.claude/skills',
    ]);
  });

  it('CLAUDE_CONFIG_DIR replaces ~/.claude; set but empty, personal skills are read from skills/ of the working folder and never written', () => {
    const moved = claudeCodeAdapter.discoveryRoots(
      null,
      runtimeEnvironmentFrom({ HOME: '/h', CLAUDE_CONFIG_DIR: '/cfg/claude', LOADOUT_CLAUDE_MANAGED_DIR: '/m' }),
    );
    expect(moved.map((root) => root.dir)).toEqual(['/m/.claude/skills', '/cfg/claude/skills', '/cfg/claude/plugins']);
    const empty = runtimeEnvironmentFrom({ HOME: '/h', CLAUDE_CONFIG_DIR: '', LOADOUT_CLAUDE_MANAGED_DIR: '/m' });
    expect(claudeCodeAdapter.discoveryRoots(null, empty).map((root) => root.dir)).toEqual(['/m/.claude/skills']);
    const inProject = claudeCodeAdapter.discoveryRoots('/w/app', empty).find((root) => root.scope === 'user');
    expect(inProject).toMatchObject({ dir: '/w/app/skills', writes: null });
  });

  it('loads any SKILL.md, frontmatter or not', () => {
    expect(claudeCodeAdapter.refuses(facts)).toBeNull();
  });
});
