import path from 'node:path';
import { foldersUpToRepositoryOrHome } from '../findRepositoryRoot.js';
import { claudeMcpSupport } from '../mcp/claudeMcpSupport.js';
import type { CompiledInNames, DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { runtimeFolderIn } from '../RuntimeEnvironment.js';

/**
 * Every name Claude Code 2.1.197 lists on a fresh home with no skills (`commands[]` of the SDK
 * `initialize` answer): its bundled skills and built-in commands. A skill of one of these names is
 * listed twice. The end-to-end tests ask the pinned client again and fail when this list drifts.
 */
export const CLAUDE_CODE_COMPILED_IN: CompiledInNames = {
  version: '2.1.197',
  names: [
    'batch',
    'claude-api',
    'clear',
    'code-review',
    'compact',
    'config',
    'context',
    'debug',
    'deep-research',
    'design-sync',
    'fewer-permission-prompts',
    'goal',
    'heapdump',
    'init',
    'insights',
    'loop',
    'reload-skills',
    'review',
    'run',
    'run-skill-generator',
    'security-review',
    'simplify',
    'team-onboarding',
    'update-config',
    'usage',
    'verify',
  ],
};

/**
 * Claude Code. Managed skills (`<managed settings>/.claude/skills`, `/etc/claude-code` on Linux),
 * personal skills (`$CLAUDE_CONFIG_DIR/skills`, default `~/.claude/skills`), then `.claude/skills`
 * in the starting folder and each parent up to the repository root, then its bundled skills and
 * commands. Every copy of a name is listed; invoking the name runs the first. Plugin skills are
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
};
