import path from 'node:path';
import { gitRepo, removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { codexAdapter } from './codexAdapter.js';

afterEach(() => removeTestdirs());

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

  it('CODEX_HOME holds the deprecated user folder and the system skills; unset, it is ~/.codex', () => {
    const relocated = codexAdapter.discoveryRoots(null, runtimeEnvironmentFrom({ HOME: '/h', CODEX_HOME: '/c' })).map((root) => root.dir);
    expect(relocated).toEqual(['/h/.agents/skills', '/c/skills', '/c/skills/.system', '/etc/codex/skills', '/c/plugins']);
    const fallback = codexAdapter.discoveryRoots(null, runtimeEnvironmentFrom({ HOME: '/h', CODEX_HOME: '' })).map((root) => root.dir);
    expect(fallback[1]).toBe('/h/.codex/skills');
  });
});
