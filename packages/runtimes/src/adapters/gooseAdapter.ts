import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { gooseConfigDir, gooseMcpSupport } from '../mcp/gooseMcpSupport.js';
import { absoluteVariable } from '../RuntimeEnvironment.js';
import { frontmatterText } from './admissionRules.js';

/** Goose walks every folder below a root; Loadout looks as deep as a skill may nest. */
const ANY_DEPTH = 16;

/**
 * Goose. The working folder's `.agents/skills`, `.goose/skills` and `.claude/skills` (no parents),
 * then `~/.agents/skills`, its config folder's `skills` (`$GOOSE_PATH_ROOT/config`, else
 * `$XDG_CONFIG_HOME/goose`, default `~/.config/goose`), `~/.claude/skills` and
 * `~/.config/agents/skills`, then its built-ins. The first skill of a name wins, silently. A skill
 * needs frontmatter and a name without `/`. Verified 2026-12-03 against the source
 * (`crates/goose/src/skills`); see docs/runtimes.md.
 */
export const gooseAdapter: RuntimeAdapter = {
  name: 'goose',
  verified: true,
  verifiedOn: '2026-12-03',
  sameName: 'first-wins',
  presence: (env) => ({ commands: ['goose'], homes: [absoluteVariable(env.variables.GOOSE_PATH_ROOT) ?? gooseConfigDir(env)] }),
  sources: [
    'https://github.com/aaif-goose/goose/blob/main/crates/goose/src/skills/mod.rs',
    'https://block.github.io/goose/docs/guides/context-engineering/using-skills',
  ],
  discoveryRoots(project, env) {
    const configDir = gooseConfigDir(env);
    const roots: DiscoveryRoot[] = [];
    if (project !== null) {
      const folder = path.resolve(project);
      roots.push(
        {
          dir: path.join(folder, PROJECT_ROOT_FOLDER, 'skills'),
          scope: 'project',
          depth: ANY_DEPTH,
          writes: 'project',
          note: "project skills (Loadout's project root)",
        },
        { dir: path.join(folder, '.goose', 'skills'), scope: 'project', depth: ANY_DEPTH, writes: null, note: 'project .goose skills' },
        { dir: path.join(folder, '.claude', 'skills'), scope: 'project', depth: ANY_DEPTH, writes: null, note: 'project .claude skills' },
      );
    }
    roots.push(
      {
        dir: path.join(env.home, PROJECT_ROOT_FOLDER, 'skills'),
        scope: 'user',
        depth: ANY_DEPTH,
        writes: 'user',
        note: 'personal skills shared with other agents',
      },
      { dir: path.join(configDir, 'skills'), scope: 'user', depth: ANY_DEPTH, writes: null, note: 'Goose config skills' },
      { dir: path.join(env.home, '.claude', 'skills'), scope: 'user', depth: ANY_DEPTH, writes: null, note: 'personal .claude skills' },
      {
        dir: path.join(env.home, '.config', 'agents', 'skills'),
        scope: 'user',
        depth: ANY_DEPTH,
        writes: null,
        note: '~/.config/agents skills',
      },
    );
    return roots;
  },
  refuses(skill) {
    if (skill.frontmatter === null) return 'Goose does not load a SKILL.md without frontmatter';
    const name = frontmatterText(skill, 'name');
    if (name === null) return 'Goose does not load a skill without a name';
    if (name.includes('/')) return 'Goose does not load a name holding /';
    return null;
  },
  mcp: gooseMcpSupport,
};
