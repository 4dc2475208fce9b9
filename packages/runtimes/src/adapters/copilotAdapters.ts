import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import { foldersUpToRepositoryRoot } from '../findRepositoryRoot.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { copilotCliMcpSupport, copilotVsCodeMcpSupport } from '../mcp/runtimeMcpSupports.js';
import { absoluteVariable, xdgConfigHome } from '../RuntimeEnvironment.js';
import { refuseWithoutDescription } from './admissionRules.js';

/**
 * GitHub Copilot in VS Code (agent mode). The workspace folder's `.github/skills`, `.agents/skills`
 * and `.claude/skills`, then the user's `~/.copilot/skills`, `~/.agents/skills` and
 * `~/.claude/skills`; one level deep; the first skill of a name wins and later ones are skipped.
 * Parent folders count only with a setting that is off by default. A skill needs a description.
 * Verified 2026-12-03 against the VS Code docs (approved 2026-05-28) and source; see docs/runtimes.md.
 */
export const copilotVsCodeAdapter: RuntimeAdapter = {
  name: 'copilot-vscode',
  verified: true,
  verifiedOn: '2026-12-03',
  sameName: 'first-wins',
  presence: (env) => ({
    commands: ['code', 'code-insiders'],
    homes: [path.join(env.home, '.vscode'), path.join(xdgConfigHome(env), 'Code')],
  }),
  sources: [
    'https://code.visualstudio.com/docs/copilot/customization/agent-skills',
    'https://github.com/microsoft/vscode/blob/main/src/vs/workbench/contrib/chat/common/promptSyntax/config/promptFileLocations.ts',
  ],
  discoveryRoots(project, env) {
    const roots: DiscoveryRoot[] = [];
    if (project !== null) {
      const folder = path.resolve(project);
      roots.push(
        { dir: path.join(folder, '.github', 'skills'), scope: 'project', depth: 1, writes: null, note: 'workspace .github skills' },
        {
          dir: path.join(folder, PROJECT_ROOT_FOLDER, 'skills'),
          scope: 'project',
          depth: 1,
          writes: 'project',
          note: "workspace skills (Loadout's project root)",
        },
        { dir: path.join(folder, '.claude', 'skills'), scope: 'project', depth: 1, writes: null, note: 'workspace .claude skills' },
      );
    }
    roots.push(
      { dir: path.join(env.home, '.copilot', 'skills'), scope: 'user', depth: 1, writes: null, note: 'personal Copilot skills' },
      {
        dir: path.join(env.home, PROJECT_ROOT_FOLDER, 'skills'),
        scope: 'user',
        depth: 1,
        writes: 'user',
        note: 'personal skills shared with other agents',
      },
      { dir: path.join(env.home, '.claude', 'skills'), scope: 'user', depth: 1, writes: null, note: 'personal .claude skills' },
    );
    return roots;
  },
  refuses: (skill) => refuseWithoutDescription('VS Code', skill),
  mcp: copilotVsCodeMcpSupport,
};

/**
 * GitHub Copilot CLI. `.github/skills`, `.agents/skills` and `.claude/skills` of the working folder,
 * `.github/skills` of its parents up to the repository root, then `$COPILOT_HOME/skills` (default
 * `~/.copilot/skills`) and `~/.agents/skills` (not read once `COPILOT_HOME` is set), then the folders
 * in `COPILOT_SKILLS_DIRS`, then its bundled skills. The first skill found of a name wins.
 * Verified 2026-12-03 against the GitHub docs and the CLI changelog (1.0.71); see docs/runtimes.md.
 */
export const copilotCliAdapter: RuntimeAdapter = {
  name: 'copilot-cli',
  verified: true,
  verifiedOn: '2026-12-03',
  sameName: 'first-wins',
  presence: (env) => ({
    commands: ['copilot'],
    homes: [absoluteVariable(env.variables.COPILOT_HOME) ?? path.join(env.home, '.copilot')],
  }),
  sources: [
    'https://docs.github.com/en/copilot/concepts/agents/about-agent-skills',
    'https://github.com/github/copilot-cli/blob/main/changelog.md',
  ],
  discoveryRoots(project, env) {
    const roots: DiscoveryRoot[] = [];
    if (project !== null) {
      const [own, ...parents] = foldersUpToRepositoryRoot(project) as [string, ...string[]];
      roots.push(
        { dir: path.join(own, '.github', 'skills'), scope: 'project', depth: 1, writes: null, note: 'project .github skills' },
        {
          dir: path.join(own, PROJECT_ROOT_FOLDER, 'skills'),
          scope: 'project',
          depth: 1,
          writes: 'project',
          note: "project skills (Loadout's project root)",
        },
        { dir: path.join(own, '.claude', 'skills'), scope: 'project', depth: 1, writes: null, note: 'project .claude skills' },
        ...parents.map(
          (folder): DiscoveryRoot => ({
            dir: path.join(folder, '.github', 'skills'),
            scope: 'project',
            depth: 1,
            writes: null,
            note: 'parent .github skills up to the repository root',
          }),
        ),
      );
    }
    const copilotHome = absoluteVariable(env.variables.COPILOT_HOME);
    if (copilotHome === null) {
      roots.push(
        { dir: path.join(env.home, '.copilot', 'skills'), scope: 'user', depth: 1, writes: null, note: 'personal Copilot skills' },
        {
          dir: path.join(env.home, PROJECT_ROOT_FOLDER, 'skills'),
          scope: 'user',
          depth: 1,
          writes: 'user',
          note: 'personal skills shared with other agents',
        },
      );
    } else {
      roots.push({
        dir: path.join(copilotHome, 'skills'),
        scope: 'user',
        depth: 1,
        writes: 'user',
        note: 'personal Copilot skills ($COPILOT_HOME)',
      });
    }
    for (const dir of (env.variables.COPILOT_SKILLS_DIRS ?? '').split(',')) {
      const extra = absoluteVariable(dir.trim());
      if (extra !== null) roots.push({ dir: extra, scope: 'user', depth: 1, writes: null, note: 'a COPILOT_SKILLS_DIRS folder' });
    }
    return roots;
  },
  refuses: (skill) => refuseWithoutDescription('Copilot CLI', skill),
  mcp: copilotCliMcpSupport,
};
