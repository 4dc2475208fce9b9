import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import { foldersUpToRepositoryRoot } from '../findRepositoryRoot.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { absoluteVariable, xdgConfigHome } from '../RuntimeEnvironment.js';
import { openCodeMcpSupport } from '../mcp/runtimeMcpSupports.js';
import { refuseWithoutDescription } from './admissionRules.js';

/** OpenCode reads `SKILL.md` at any depth below a root; Loadout looks as deep as a skill may nest. */
const ANY_DEPTH = 16;

function flag(value: string | undefined): boolean {
  return value !== undefined && /^(true|1)$/i.test(value);
}

/**
 * OpenCode. Later sources replace earlier ones of the same name; listed here highest first:
 * `.opencode/skills` from the working folder up to the repository root, `~/.config/opencode/skills`
 * (`$XDG_CONFIG_HOME`), `$OPENCODE_CONFIG_DIR/skills`, `.agents/skills` (working folder up, then
 * `~/.agents/skills`), `.claude/skills` (the same), then built-ins. `OPENCODE_DISABLE_EXTERNAL_SKILLS`
 * drops the `.agents` and `.claude` roots, `OPENCODE_DISABLE_CLAUDE_CODE(_SKILLS)` the `.claude` ones.
 * A skill without a description is not offered. Verified 2026-12-03 against the current docs
 * (opencode.ai/docs/skills) and the loader source; see docs/runtimes.md.
 */
export const openCodeAdapter: RuntimeAdapter = {
  name: 'opencode',
  verified: true,
  verifiedOn: '2026-12-03',
  sameName: 'first-wins',
  presence: (env) => ({
    commands: ['opencode'],
    homes: [absoluteVariable(env.variables.OPENCODE_CONFIG_DIR) ?? path.join(xdgConfigHome(env), 'opencode')],
  }),
  sources: ['https://opencode.ai/docs/skills', 'https://github.com/anomalyco/opencode/blob/dev/packages/opencode/src/skill/index.ts'],
  discoveryRoots(project, env) {
    const vars = env.variables;
    const folders = project === null ? [] : foldersUpToRepositoryRoot(project);
    const configHome = xdgConfigHome(env);
    const configDir = absoluteVariable(vars.OPENCODE_CONFIG_DIR);
    const external = !flag(vars.OPENCODE_DISABLE_EXTERNAL_SKILLS);
    const claude = external && !flag(vars.OPENCODE_DISABLE_CLAUDE_CODE) && !flag(vars.OPENCODE_DISABLE_CLAUDE_CODE_SKILLS);
    const shared = (folder: string, name: string, writes: boolean, note: string): DiscoveryRoot => ({
      dir: path.join(folder, name, 'skills'),
      scope: folder === env.home ? 'user' : 'project',
      depth: ANY_DEPTH,
      writes: writes ? (folder === env.home ? 'user' : 'project') : null,
      note,
    });
    const roots: DiscoveryRoot[] = folders.map((folder) => shared(folder, '.opencode', false, 'project .opencode skills'));
    roots.push({
      dir: path.join(configHome, 'opencode', 'skills'),
      scope: 'user',
      depth: ANY_DEPTH,
      writes: null,
      note: 'OpenCode global skills',
    });
    if (configDir !== null)
      roots.push({
        dir: path.join(configDir, 'skills'),
        scope: 'user',
        depth: ANY_DEPTH,
        writes: null,
        note: 'OPENCODE_CONFIG_DIR skills',
      });
    if (external) {
      roots.push(
        ...folders.map((folder, index) =>
          shared(
            folder,
            PROJECT_ROOT_FOLDER,
            index === 0,
            index === 0 ? "project skills (Loadout's project root)" : 'parent .agents skills',
          ),
        ),
      );
      roots.push(shared(env.home, PROJECT_ROOT_FOLDER, true, 'personal skills shared with other agents'));
    }
    if (claude) {
      roots.push(...folders.map((folder) => shared(folder, '.claude', false, 'project .claude skills')));
      roots.push(shared(env.home, '.claude', false, 'personal .claude skills'));
    }
    return roots;
  },
  refuses: (skill) => refuseWithoutDescription('OpenCode', skill),
  mcp: openCodeMcpSupport,
};
