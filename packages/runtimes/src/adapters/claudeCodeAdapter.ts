import path from 'node:path';
import { foldersUpToRepositoryOrHome } from '../findRepositoryRoot.js';
import { claudeMcpSupport } from '../mcp/claudeMcpSupport.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { absoluteFolder, runtimeFolderIn } from '../RuntimeEnvironment.js';
import { claudeCodeDocuments } from './claudeCodeDocuments.js';
import { CLAUDE_CODE_COMPILED_IN, CLAUDE_CODE_VERSIONS } from './claudeCodeVersions.js';
import { CLAUDE_CODE_LISTING } from './listingRules.js';

export { CLAUDE_CODE_COMPILED_IN } from './claudeCodeVersions.js';

/**
 * Claude Code. Managed skills (`<managed settings>/.claude/skills`, `/etc/claude-code` on Linux),
 * personal skills (`$CLAUDE_CONFIG_DIR/skills`, default `~/.claude/skills`), then `.claude/skills`
 * in the starting folder and each parent up to the repository root, then its bundled skills and
 * commands. 2.1.197 lists every copy of a name and invoking it runs the first; 2.1.332 lists the
 * first only, and a skill replaces a built-in of its name (the plan asks `claude --version`, see
 * claudeCodeVersions.ts); without a client on PATH it plans as 2.1.197. Plugin skills are
 * named `plugin-name:skill`. It loads any `<root>/<dir>/SKILL.md`, frontmatter or not.
 * Verified 2026-12-03 against the docs and the real client 2.1.197; see docs/runtimes.md.
 */
export const claudeCodeAdapter: RuntimeAdapter = {
  name: 'claude-code',
  verified: true,
  verifiedOn: '2026-12-03',
  sameName: 'listed-first-runs',
  sources: [
    'https://code.claude.com/docs/en/skills',
    'https://code.claude.com/docs/en/settings#environment-variables',
    '@anthropic-ai/claude-code 2.1.197, asked offline (packages/e2e/test/runtimes)',
  ],
  compiledIn: CLAUDE_CODE_COMPILED_IN,
  client: CLAUDE_CODE_VERSIONS,
  presence: (env) => ({ commands: ['claude'], homes: absoluteFolder(env.claudeConfig) }),
  discoveryRoots(project, env) {
    const roots: DiscoveryRoot[] = [
      {
        dir: path.join(env.claudeManagedDir, '.claude', 'skills'),
        scope: 'managed',
        depth: 1,
        writes: null,
        note: 'managed (enterprise) skills',
      },
    ];
    const config = runtimeFolderIn(env.claudeConfig, project);
    if (config !== null) {
      roots.push({
        dir: path.join(config, 'skills'),
        scope: 'user',
        depth: 1,
        writes: env.claudeConfig.relative ? null : 'user',
        note: env.claudeConfig.relative
          ? 'personal skills, relative to the working folder (CLAUDE_CONFIG_DIR is relative)'
          : 'personal skills',
      });
    }
    if (project !== null) {
      for (const folder of foldersUpToRepositoryOrHome(project, env.home)) {
        const isProject = folder === path.resolve(project);
        roots.push({
          dir: path.join(folder, '.claude', 'skills'),
          scope: 'project',
          depth: 1,
          writes: isProject ? 'project' : null,
          note: isProject ? 'project skills' : 'project skills of a parent folder',
        });
      }
    }
    if (config !== null) {
      roots.push({
        dir: path.join(config, 'plugins'),
        scope: 'namespaced',
        depth: 0,
        writes: null,
        note: 'plugin skills, named plugin-name:skill',
      });
    }
    return roots;
  },
  refuses: () => null,
  mcp: claudeMcpSupport,
  documents: claudeCodeDocuments,
  listing: CLAUDE_CODE_LISTING,
};
