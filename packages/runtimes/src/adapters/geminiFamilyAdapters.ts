import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import {
  auggieMcpSupport,
  crushMcpSupport,
  geminiHome,
  geminiMcpSupport,
  kiloCodeMcpSupport,
  qwenMcpSupport,
} from '../mcp/runtimeMcpSupports.js';
import type { RuntimeMcpSupport } from '../mcp/RuntimeMcpSupport.js';
import type { DiscoveryRoot, RuntimeAdapter } from '../RuntimeAdapter.js';
import { xdgConfigHome } from '../RuntimeEnvironment.js';
import { refuseWithoutDescription } from './admissionRules.js';
import { geminiCliDocuments } from './geminiCliDocuments.js';

/**
 * Gemini CLI. Skills: the working folder's `.agents/skills` then `.gemini/skills`, then the user's
 * `~/.agents/skills` then `~/.gemini/skills` (`$GEMINI_CLI_HOME` replaces the home folder), then
 * its bundled skills; one level deep; the first of a name wins (it logs the override). A skill
 * needs frontmatter and a description. Verified 2026-12-05 with `@google/gemini-cli` 0.61.0
 * (`gemini skills list --all`); see docs/runtimes.md.
 */
export const geminiCliAdapter: RuntimeAdapter = {
  name: 'gemini-cli',
  verified: true,
  verifiedOn: '2026-12-05',
  sameName: 'first-wins',
  compiledIn: { version: '0.61.0', names: ['antigravity-support', 'skill-creator'], replacedBySkills: true },
  sources: ['https://geminicli.com/docs/cli/skills', '@google/gemini-cli 0.61.0: `gemini skills list --all` (precedence, built-ins)'],
  discoveryRoots(project, env) {
    const home = geminiHome(env);
    const roots: DiscoveryRoot[] = [];
    if (project !== null) {
      const folder = path.resolve(project);
      roots.push(
        {
          dir: path.join(folder, PROJECT_ROOT_FOLDER, 'skills'),
          scope: 'project',
          depth: 1,
          writes: 'project',
          note: "workspace skills (Loadout's project root)",
        },
        { dir: path.join(folder, '.gemini', 'skills'), scope: 'project', depth: 1, writes: null, note: 'workspace .gemini skills' },
      );
    }
    roots.push(
      {
        dir: path.join(home, PROJECT_ROOT_FOLDER, 'skills'),
        scope: 'user',
        depth: 1,
        writes: 'user',
        note: 'user skills shared with other agents',
      },
      { dir: path.join(home, '.gemini', 'skills'), scope: 'user', depth: 1, writes: null, note: 'user .gemini skills' },
    );
    return roots;
  },
  refuses: (skill) => refuseWithoutDescription('Gemini CLI', skill),
  presence: (env) => ({ commands: ['gemini'], homes: [path.join(geminiHome(env), '.gemini')] }),
  mcp: geminiMcpSupport,
  documents: geminiCliDocuments,
};

/**
 * A runtime whose skills live in `<project>/FOLDER/skills` and `~/FOLDER/skills`, and which lists
 * none offline: its roots are read, never written, and its MCP servers are its verified part.
 */
function readOnlySkills(runtime: {
  name: string;
  label: string;
  folder: string;
  command: string;
  sources: readonly string[];
  mcp: RuntimeMcpSupport;
}): RuntimeAdapter {
  return {
    name: runtime.name,
    verified: false,
    verifiedOn: null,
    sameName: 'unverified',
    sources: runtime.sources,
    discoveryRoots: (project, env) => [
      ...(project === null
        ? []
        : [
            {
              dir: path.join(path.resolve(project), runtime.folder, 'skills'),
              scope: 'project' as const,
              depth: 1,
              writes: null,
              note: 'project skills',
            },
          ]),
      { dir: path.join(env.home, runtime.folder, 'skills'), scope: 'user', depth: 1, writes: null, note: 'personal skills' },
    ],
    refuses: (skill) => refuseWithoutDescription(runtime.label, skill),
    presence: (env) => ({ commands: [runtime.command], homes: [path.join(env.home, runtime.folder)] }),
    mcp: runtime.mcp,
  };
}

/**
 * Qwen Code (a fork of Gemini CLI). Its MCP servers are verified with its own client; its skill
 * folders (`.qwen/skills`, `~/.qwen/skills`) are documented but it lists no skills offline, so
 * Loadout writes no skills for it.
 */
export const qwenCodeAdapter = readOnlySkills({
  name: 'qwen-code',
  label: 'Qwen Code',
  folder: '.qwen',
  command: 'qwen',
  sources: ['https://qwenlm.github.io/qwen-code-docs/en/users/features/skills/'],
  mcp: qwenMcpSupport,
});

/**
 * Crush. Its MCP files are documented (its npm package downloads the binary from GitHub at
 * install, so no test here can ask it); its skill folder `$XDG_CONFIG_HOME/crush/skills` is read,
 * never written.
 */
export const crushAdapter: RuntimeAdapter = {
  name: 'crush',
  verified: false,
  verifiedOn: null,
  sameName: 'unverified',
  sources: ['https://github.com/charmbracelet/crush#agent-skills'],
  discoveryRoots: (_project, env) => [
    { dir: path.join(xdgConfigHome(env), 'crush', 'skills'), scope: 'user', depth: 1, writes: null, note: 'Crush skills' },
  ],
  refuses: (skill) => refuseWithoutDescription('Crush', skill),
  presence: (env) => ({ commands: ['crush'], homes: [path.join(xdgConfigHome(env), 'crush')] }),
  mcp: crushMcpSupport,
};

/**
 * Kilo Code's CLI (`kilo`, built on OpenCode). MCP servers verified with `@kilocode/cli` 7.7.7
 * (`kilo debug config`). Skills, as `kilo debug skill` lists them: `~/.claude/skills`,
 * `~/.agents/skills`, the project's `.claude/skills` and `.agents/skills`, then
 * `$XDG_CONFIG_HOME/kilo/skills`, the project's `.kilocode/skills` and `.kilo/skills`, and
 * `~/.kilocode/skills`, `~/.kilo/skills`; which of two skills of one name wins is not measured,
 * so its own roots are read, never written (it sees what Loadout writes into `.agents/skills`).
 */
export const kiloCodeAdapter: RuntimeAdapter = {
  name: 'kilo-code',
  verified: false,
  verifiedOn: null,
  sameName: 'unverified',
  sources: ['https://kilo.ai/docs/customize/skills', '@kilocode/cli 7.7.7: `kilo debug skill`'],
  discoveryRoots(project, env) {
    const own = (dir: string, scope: 'user' | 'project', note: string): DiscoveryRoot => ({ dir, scope, depth: 1, writes: null, note });
    const folder = project === null ? null : path.resolve(project);
    return [
      own(path.join(env.home, '.claude', 'skills'), 'user', 'personal .claude skills'),
      own(path.join(env.home, PROJECT_ROOT_FOLDER, 'skills'), 'user', 'personal skills shared with other agents'),
      ...(folder === null
        ? []
        : [
            own(path.join(folder, '.claude', 'skills'), 'project', 'project .claude skills'),
            own(path.join(folder, PROJECT_ROOT_FOLDER, 'skills'), 'project', 'project skills shared with other agents'),
          ]),
      own(path.join(xdgConfigHome(env), 'kilo', 'skills'), 'user', 'global Kilo skills'),
      ...(folder === null
        ? []
        : [
            own(path.join(folder, '.kilocode', 'skills'), 'project', 'project .kilocode skills'),
            own(path.join(folder, '.kilo', 'skills'), 'project', 'project .kilo skills'),
          ]),
      own(path.join(env.home, '.kilocode', 'skills'), 'user', 'personal .kilocode skills'),
      own(path.join(env.home, '.kilo', 'skills'), 'user', 'personal .kilo skills'),
    ];
  },
  refuses: (skill) => refuseWithoutDescription('Kilo Code', skill),
  presence: (env) => ({ commands: ['kilo', 'kilocode'], homes: [path.join(xdgConfigHome(env), 'kilo')] }),
  mcp: kiloCodeMcpSupport,
};

/**
 * Auggie (Augment's CLI). MCP servers verified with `@augmentcode/auggie` 0.36.0
 * (`auggie mcp list --json`). Skills: its bundle names `.augment/skills`; nothing lists them
 * offline, so its roots are read, never written.
 */
export const auggieAdapter = readOnlySkills({
  name: 'auggie',
  label: 'Auggie',
  folder: '.augment',
  command: 'auggie',
  sources: ['https://docs.augmentcode.com/cli/skills'],
  mcp: auggieMcpSupport,
});
