import path from 'node:path';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { copilotCliAdapter, copilotVsCodeAdapter } from './copilotAdapters.js';
import { gooseAdapter } from './gooseAdapter.js';
import { openCodeAdapter } from './openCodeAdapter.js';
import {
  ampAdapter,
  antigravityAdapter,
  antigravityCliAdapter,
  clineAdapter,
  cursorAdapter,
  windsurfAdapter,
} from './unconfirmedAdapters.js';

afterEach(() => removeTestdirs());

function rootsOf(adapter: typeof gooseAdapter, variables: Record<string, string> = {}) {
  const base = testdir({});
  const repo = gitRepo(path.join(base, 'repo'), { 'app/README.md': 'x' });
  const env = runtimeEnvironmentFrom({ HOME: path.join(base, 'home'), ...variables });
  return adapter.discoveryRoots(path.join(repo, 'app'), env).map((root) => [path.relative(base, root.dir), root.writes]);
}

describe('runtimes that read the shared .agents/skills folders', () => {
  it('write Loadout skills only into the shared folders', () => {
    for (const adapter of [copilotVsCodeAdapter, copilotCliAdapter, openCodeAdapter, gooseAdapter]) {
      const writes = rootsOf(adapter).filter(([, target]) => target !== null);
      expect(writes, adapter.name).toEqual([
        ['repo/app/.agents/skills', 'project'],
        ['home/.agents/skills', 'user'],
      ]);
      expect(adapter.verified).toBe(true);
    }
  });

  it('VS Code reads the workspace before the user, one folder each, no parents', () => {
    expect(rootsOf(copilotVsCodeAdapter).map(([dir]) => dir)).toEqual([
      'repo/app/.github/skills',
      'repo/app/.agents/skills',
      'repo/app/.claude/skills',
      'home/.copilot/skills',
      'home/.agents/skills',
      'home/.claude/skills',
    ]);
  });

  it('Copilot CLI: COPILOT_HOME replaces ~/.copilot and turns off ~/.agents/skills; COPILOT_SKILLS_DIRS adds absolute folders', () => {
    const env = runtimeEnvironmentFrom({ HOME: '/h', COPILOT_HOME: '/ch', COPILOT_SKILLS_DIRS: '/x/skills, relative,/y' });
    expect(copilotCliAdapter.discoveryRoots(null, env).map((root) => [root.dir, root.writes])).toEqual([
      ['/ch/skills', 'user'],
      ['/x/skills', null],
      ['/y', null],
    ]);
  });

  it('OpenCode ranks .opencode, then its config folder, then .agents, then .claude; flags drop the shared folders', () => {
    expect(rootsOf(openCodeAdapter).map(([dir]) => dir)).toEqual([
      'repo/app/.opencode/skills',
      'repo/.opencode/skills',
      'home/.config/opencode/skills',
      'repo/app/.agents/skills',
      'repo/.agents/skills',
      'home/.agents/skills',
      'repo/app/.claude/skills',
      'repo/.claude/skills',
      'home/.claude/skills',
    ]);
    const external = rootsOf(openCodeAdapter, { OPENCODE_DISABLE_EXTERNAL_SKILLS: 'true' }).map(([dir]) => dir);
    expect(external.some((dir) => (dir as string).includes('.agents') || (dir as string).includes('.claude'))).toBe(false);
  });

  it('Goose reads the working folder only, then the global folders; GOOSE_PATH_ROOT moves its own', () => {
    expect(rootsOf(gooseAdapter, { GOOSE_PATH_ROOT: '/g' }).map(([dir]) => (dir as string).replace(/^(\.\.\/)+/, '/'))).toEqual([
      'repo/app/.agents/skills',
      'repo/app/.goose/skills',
      'repo/app/.claude/skills',
      'home/.agents/skills',
      '/g/config/skills',
      'home/.claude/skills',
      'home/.config/agents/skills',
    ]);
  });

  it('the unconfirmed runtimes write nothing, and Antigravity uses its current folders', () => {
    for (const adapter of [cursorAdapter, windsurfAdapter, ampAdapter, antigravityAdapter, antigravityCliAdapter, clineAdapter]) {
      expect(adapter.verified, adapter.name).toBe(false);
      expect(
        rootsOf(adapter).every(([, writes]) => writes === null),
        adapter.name,
      ).toBe(true);
    }
    expect(rootsOf(antigravityAdapter).map(([dir]) => dir)).toEqual(['repo/app/.agents/skills', 'home/.gemini/config/skills']);
    expect(rootsOf(antigravityCliAdapter).map(([dir]) => dir)).toEqual(['repo/app/.agents/skills', 'home/.gemini/antigravity-cli/skills']);
  });

  it('Cline reads its project folders before the personal ones, as its bundle searches them; CLINE_DIR moves its folder', () => {
    expect(rootsOf(clineAdapter).map(([dir]) => dir)).toEqual([
      'repo/app/.clinerules/skills',
      'repo/app/.cline/skills',
      'repo/app/.agents/skills',
      'home/.cline/skills',
      'home/.agents/skills',
    ]);
    const env = runtimeEnvironmentFrom({ HOME: '/h', CLINE_DIR: '/opt/cline' });
    expect(clineAdapter.presence?.(env)).toEqual({ commands: ['cline'], homes: ['/opt/cline'] });
  });
});
