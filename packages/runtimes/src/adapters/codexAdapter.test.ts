import path from 'node:path';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { SkillFileFacts } from '../RuntimeAdapter.js';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { codexAdapter } from './codexAdapter.js';

afterEach(() => removeTestdirs());

const skill = (frontmatter: Record<string, unknown> | null, more: Partial<SkillFileFacts> = {}): SkillFileFacts => ({
  folderName: 'folder',
  frontmatter,
  startsWithFence: frontmatter !== null,
  skillFileIsLink: false,
  ...more,
});

describe('codexAdapter', () => {
  it('scans .agents/skills from the working folder up through the repository root, then the user roots', () => {
    const base = testdir({});
    const repo = gitRepo(path.join(base, 'repo'), { 'a/b/README.md': 'x' });
    const env = runtimeEnvironmentFrom({ HOME: path.join(base, 'home'), CODEX_HOME: path.join(base, 'codex') });
    const roots = codexAdapter.discoveryRoots(path.join(repo, 'a', 'b'), env).filter((root) => root.dir.includes('.agents'));
    expect(roots.map((root) => [path.relative(base, root.dir), root.scope, root.writes])).toEqual([
      ['repo/a/b/.agents/skills', 'project', 'project'],
      ['repo/a/.agents/skills', 'project', null],
      ['repo/.agents/skills', 'project', null],
      ['home/.agents/skills', 'user', 'user'],
    ]);
  });

  it('outside a repository only the working folder is a project root', () => {
    const base = testdir({ work: {} });
    const env = runtimeEnvironmentFrom({ HOME: path.join(base, 'home') });
    const projectRoots = codexAdapter.discoveryRoots(path.join(base, 'work'), env).filter((root) => root.scope === 'project');
    expect(projectRoots.map((root) => path.relative(base, root.dir))).toEqual(['work/.agents/skills', 'work/.codex/skills']);
  });

  it('CODEX_HOME holds the deprecated user folder and the system skills; empty, it is ~/.codex', () => {
    const relocated = codexAdapter.discoveryRoots(null, runtimeEnvironmentFrom({ HOME: '/h', CODEX_HOME: '/c' })).map((root) => root.dir);
    expect(relocated).toEqual(['/h/.agents/skills', '/c/skills', '/c/skills/.system', '/etc/codex/skills', '/c/plugins']);
    const fallback = codexAdapter.discoveryRoots(null, runtimeEnvironmentFrom({ HOME: '/h', CODEX_HOME: '' })).map((root) => root.dir);
    expect(fallback[1]).toBe('/h/.codex/skills');
  });

  it('counts its system skills as present before its first start installs them', () => {
    const system = codexAdapter.discoveryRoots(null, runtimeEnvironmentFrom({ HOME: '/h' })).find((root) => root.scope === 'builtin');
    expect(system?.installs).toContain('skill-creator');
  });

  it.each([
    ['a skill with a description', skill({ name: 'x', description: 'd' }), null],
    ['no name: the folder names it', skill({ description: 'd' }), null],
    ['no description', skill({ name: 'x' }), 'Codex does not load a skill without a description'],
    ['an empty description', skill({ name: 'x', description: '  ' }), 'Codex does not load a skill without a description'],
    ['no frontmatter', skill(null), 'Codex does not load a SKILL.md without frontmatter'],
    [
      'a byte order mark before ---',
      skill({ name: 'x', description: 'd' }, { startsWithFence: false }),
      'Codex does not load a SKILL.md without frontmatter',
    ],
    [
      'a SKILL.md that is a link',
      skill({ name: 'x', description: 'd' }, { skillFileIsLink: true }),
      'Codex does not load a SKILL.md that is a link',
    ],
    ['a name of 65 characters', skill({ name: 'n'.repeat(65), description: 'd' }), 'Codex does not load a name longer than 64 characters'],
  ])('admission: %s', (_title, facts, refusal) => {
    expect(codexAdapter.refuses(facts)).toBe(refusal);
  });
});
