import path from 'node:path';
import { foldersUpToRepositoryRoot } from '../findRepositoryRoot.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';

/**
 * Claude Code. Personal skills (`$CLAUDE_CONFIG_DIR/skills`, default `~/.claude/skills`) win over
 * project skills (`.claude/skills` in the starting folder and each parent up to the repository
 * root); enterprise skills win over both but live in managed settings Loadout does not read.
 * Plugin skills are named `plugin-name:skill`, so they never collide with a plain name.
 * Verified 2026-12-02; see docs/runtimes.md.
 */
export const claudeCodeAdapter: RuntimeAdapter = {
  name: 'claude-code',
  verified: true,
  verifiedOn: '2026-12-02',
  sameName: 'first-wins',
  sources: [
    'https://code.claude.com/docs/en/skills',
    'https://code.claude.com/docs/en/settings#environment-variables',
  ],
  discoveryRoots(project, env) {
    const roots: DiscoveryRoot[] = [
      { dir: path.join(env.claudeConfigDir, 'skills'), scope: 'user', depth: 1, writes: 'user', note: 'personal skills' },
    ];
    if (project !== null) {
      for (const folder of foldersUpToRepositoryRoot(project)) {
        roots.push({
          dir: path.join(folder, '.claude', 'skills'),
          scope: 'project',
          depth: 1,
          writes: folder === path.resolve(project) ? 'project' : null,
          note: folder === path.resolve(project) ? 'project skills' : 'project skills of a parent folder up to the repository root',
        });
      }
    }
    roots.push({ dir: path.join(env.claudeConfigDir, 'plugins'), scope: 'namespaced', depth: 0, writes: null, note: 'plugin skills, named plugin-name:skill' });
    return roots;
  },
};
