import path from 'node:path';
import { PROJECT_ROOT_FOLDER } from '@loadout/kernel';
import { foldersUpToRepositoryRoot } from '../findRepositoryRoot.js';
import type { DiscoveryRoot, RootScope, RuntimeAdapter, SkillFileFacts } from '../RuntimeAdapter.js';
import { ampMcpSupport, clineHome, clineMcpSupport, cursorMcpSupport, windsurfMcpSupport } from '../mcp/runtimeMcpSupports.js';
import type { RuntimeMcpSupport } from '../mcp/RuntimeMcpSupport.js';
import { frontmatterText, refuseWithoutDescription } from './admissionRules.js';

/** One root: its folder, scope and why it is read. */
type RootLine = [dir: string, scope: RootScope, note: string];

/**
 * Runtimes whose folders are documented but whose ranking of two skills of one name is not: Loadout
 * writes nothing into roots only they read (they still see what it writes into shared roots such
 * as `~/.agents/skills`), and `loadout why` reports what they would see. Facts and their dates are
 * in docs/runtimes.md.
 */
function unconfirmed(
  name: string,
  sources: readonly string[],
  roots: (project: string | null, home: string) => RootLine[],
  refuses: (skill: SkillFileFacts) => string | null,
  presence: { commands: readonly string[]; homes: (home: string) => string[] },
  depth = 1,
  mcp?: RuntimeMcpSupport,
): RuntimeAdapter {
  return {
    name,
    verified: false,
    verifiedOn: null,
    sameName: 'unverified',
    sources,
    presence: (env) => ({ commands: presence.commands, homes: presence.homes(env.home) }),
    discoveryRoots: (project, env): DiscoveryRoot[] =>
      roots(project, env.home).map(([dir, scope, note]) => ({ dir, scope, depth, writes: null, note })),
    refuses,
    ...(mcp === undefined ? {} : { mcp }),
  };
}

/** A name the skill folder must carry, as the Cursor and Windsurf docs require. */
function refuseUnlessNamedAsFolder(runtime: string, skill: SkillFileFacts): string | null {
  const refused = refuseWithoutDescription(runtime, skill);
  if (refused !== null) return refused;
  const name = frontmatterText(skill, 'name');
  if (name === null) return `${runtime} does not load a skill without a name`;
  return name.trim() === skill.folderName ? null : `${runtime} does not load a skill whose name is not its folder's`;
}

/** A project root, when there is a project. */
const inProject = (work: string | null, note: string, ...parts: string[]): RootLine[] =>
  work === null ? [] : [[path.join(path.resolve(work), ...parts), 'project', note]];

/** Cursor (editor and `agent` CLI): documented folders, undocumented ranking. */
export const cursorAdapter = unconfirmed(
  'cursor',
  ['https://cursor.com/docs/context/skills'],
  (work, home) => [
    ...inProject(work, 'project skills', PROJECT_ROOT_FOLDER, 'skills'),
    ...inProject(work, 'project .cursor skills', '.cursor', 'skills'),
    ...inProject(work, 'project .claude skills (compatibility)', '.claude', 'skills'),
    ...inProject(work, 'project .codex skills (compatibility)', '.codex', 'skills'),
    [path.join(home, PROJECT_ROOT_FOLDER, 'skills'), 'user', 'personal skills shared with other agents'],
    [path.join(home, '.cursor', 'skills'), 'user', 'personal Cursor skills'],
    [path.join(home, '.claude', 'skills'), 'user', 'personal .claude skills (compatibility)'],
    [path.join(home, '.codex', 'skills'), 'user', 'personal .codex skills (compatibility)'],
  ],
  (skill) => refuseUnlessNamedAsFolder('Cursor', skill),
  { commands: ['cursor', 'cursor-agent'], homes: (home) => [path.join(home, '.cursor')] },
  1,
  cursorMcpSupport,
);

/** Windsurf (Cascade): documented folders, undocumented ranking; `.claude` folders only when a setting is on. */
export const windsurfAdapter = unconfirmed(
  'windsurf',
  ['https://docs.windsurf.com/windsurf/cascade/skills'],
  (work, home) => [
    ['/etc/windsurf/skills', 'managed', 'system skills (enterprise)'],
    ...inProject(work, 'workspace skills', '.windsurf', 'skills'),
    ...inProject(work, 'workspace skills shared with other agents', PROJECT_ROOT_FOLDER, 'skills'),
    [path.join(home, '.codeium', 'windsurf', 'skills'), 'user', 'global Windsurf skills'],
    [path.join(home, PROJECT_ROOT_FOLDER, 'skills'), 'user', 'global skills shared with other agents'],
  ],
  (skill) => refuseUnlessNamedAsFolder('Windsurf', skill),
  { commands: ['windsurf'], homes: (home) => [path.join(home, '.codeium', 'windsurf')] },
  1,
  windsurfMcpSupport,
);

/** Amp: only third-party readings of its (closed) docs; roots searched five levels deep. */
export const ampAdapter = unconfirmed(
  'amp',
  ['https://ampcode.com/docs/customize/skills'],
  (work, home) => [
    [path.join(home, '.config', 'agents', 'skills'), 'user', 'global skills'],
    [path.join(home, PROJECT_ROOT_FOLDER, 'skills'), 'user', 'global skills shared with other agents'],
    [path.join(home, '.config', 'amp', 'skills'), 'user', 'global Amp skills'],
    ...(work === null ? [] : foldersUpToRepositoryRoot(work)).map(
      (folder): RootLine => [path.join(folder, PROJECT_ROOT_FOLDER, 'skills'), 'project', 'project skills and parents'],
    ),
    ...inProject(work, 'project .claude skills', '.claude', 'skills'),
    [path.join(home, '.claude', 'skills'), 'user', 'personal .claude skills'],
  ],
  (skill) => refuseUnlessNamedAsFolder('Amp', skill),
  { commands: ['amp'], homes: (home) => [path.join(home, '.config', 'amp')] },
  5,
  ampMcpSupport,
);

/** Antigravity (IDE and desktop app), 2.0 paths: workspace `.agents/skills`, global `~/.gemini/config/skills`. */
export const antigravityAdapter = unconfirmed(
  'antigravity',
  ['https://antigravity.google/docs/skills'],
  (work, home) => [
    ...inProject(work, 'workspace skills', PROJECT_ROOT_FOLDER, 'skills'),
    [path.join(home, '.gemini', 'config', 'skills'), 'user', 'global skills'],
  ],
  (skill) => refuseWithoutDescription('Antigravity', skill),
  { commands: ['antigravity'], homes: (home) => [path.join(home, '.gemini', 'antigravity')] },
);

/** Antigravity CLI (`agy`): workspace `.agents/skills`, global `~/.gemini/antigravity-cli/skills`. */
export const antigravityCliAdapter = unconfirmed(
  'antigravity-cli',
  ['https://antigravity.google/docs/skills'],
  (work, home) => [
    ...inProject(work, 'workspace skills', PROJECT_ROOT_FOLDER, 'skills'),
    [path.join(home, '.gemini', 'antigravity-cli', 'skills'), 'user', 'global agy skills'],
  ],
  (skill) => refuseWithoutDescription('Antigravity CLI', skill),
  { commands: ['agy'], homes: (home) => [path.join(home, '.gemini', 'antigravity-cli')] },
);

/**
 * Cline's CLI. Its MCP servers are verified (`cline` 3.0.65, its settings screen lists them). Its
 * skill folders are read from its bundle: the project's `.clinerules/skills`, `.cline/skills` and
 * `.agents/skills`, then `~/.cline/skills` and `~/.agents/skills`; its ranking of one name in two of
 * them is not measured (its settings screen has a Skills tab no test asks yet).
 */
export const clineAdapter: RuntimeAdapter = {
  ...unconfirmed(
    'cline',
    ['cline 3.0.65: the skill folders its bundle searches, in that order'],
    (work, home) => [
      ...inProject(work, 'project .clinerules skills', '.clinerules', 'skills'),
      ...inProject(work, 'project .cline skills', '.cline', 'skills'),
      ...inProject(work, 'project skills shared with other agents', PROJECT_ROOT_FOLDER, 'skills'),
      [path.join(home, '.cline', 'skills'), 'user', 'personal Cline skills'],
      [path.join(home, PROJECT_ROOT_FOLDER, 'skills'), 'user', 'personal skills shared with other agents'],
    ],
    (skill) => refuseWithoutDescription('Cline', skill),
    { commands: ['cline'], homes: (home) => [path.join(home, '.cline')] },
    1,
    clineMcpSupport,
  ),
  // `$CLINE_DIR` moves its whole folder.
  presence: (env) => ({ commands: ['cline'], homes: [clineHome(env)] }),
};
