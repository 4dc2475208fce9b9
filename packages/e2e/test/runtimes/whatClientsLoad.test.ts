import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { CLAUDE_CODE_COMPILED_IN, CODEX_SYSTEM_SKILLS } from '@loadout/runtimes';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeListing, claudeOnPath, codexListing, codexPromptSkillNames, listedTwice, skillsRefValidate } from './realClients.js';

afterEach(() => removeTestdirs());

interface PlanJson {
  ok: boolean;
  runtimes: {
    runtime: string;
    status: string;
    roots: { path: string; scope: string; writes: string | null }[];
    changes: { action: string; name: string; path: string | null; reason: string }[];
    sees: { name: string; path: string | null; owner: string }[];
    findings: { code: string; message: string }[];
  }[];
}

const skill = (name: string, description = `${name} does one thing well.`): TreeDescription => ({
  'SKILL.md': `---\nname: ${name}\ndescription: ${description}\n---\nUse ${name} when asked.\n`,
});

/**
 * A new user's machine in a temp folder: a scratch home (where the clients keep everything, never
 * the real one), a Loadout workspace whose owner's skills include `builtinNamed` (a name one of the
 * runtimes ships itself), a skill without a description and one without frontmatter, a plugin
 * installed from a local git repository (unless left out), and a project in its own repository with a project
 * skill and a nested one.
 */
function newUser(builtinNamed: string, options: { plugin?: boolean } = {}) {
  const base = testdir({});
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'workspace');
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  // A machine with both clients installed: apply finds them by their home folders.
  for (const folder of ['.claude', '.codex']) fs.mkdirSync(path.join(home, folder), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), {
    skills: {
      notes: skill('notes'),
      'café-skill': skill('café-skill'),
      [builtinNamed]: skill(builtinNamed, 'Our own take on it.'),
      nodesc: { 'SKILL.md': '---\nname: nodesc\n---\nNo description.\n' },
      nofm: { 'SKILL.md': '# No frontmatter\n\nJust text.\n' },
    },
  });
  const plugin = gitRepo(path.join(base, 'sources', 'tools'), { skills: { charts: skill('charts') } });
  const project = gitRepo(path.join(home, 'work', 'app'), {
    'README.md': 'app\n',
    '.agents': { skills: { deploy: skill('deploy'), group: { deep: skill('deep') } } },
  });
  // Claude Code 2.1.197 is the installed client Loadout finds, as it is the one these tests ask.
  const PATH = `${claudeOnPath(base, '2.1.197')}:${process.env.PATH ?? '/usr/bin:/bin'}`;
  const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, PATH });
  if (options.plugin !== false) {
    const installed = loadout('plugins', 'install', pathToFileURL(plugin).href, '--name', 'tools', '--json');
    expect(installed.status, installed.stderr).toBe(0);
  }
  return { base, home, workspace, project, loadout };
}

function part(plan: PlanJson, runtime: string): PlanJson['runtimes'][number] {
  const found = plan.runtimes.find((candidate) => candidate.runtime === runtime);
  if (found === undefined) throw new Error(`no ${runtime} in the plan`);
  return found;
}

/** Every folder the apply wrote, from the manifests it left. */
function writtenFolders(...roots: string[]): string[] {
  return roots.flatMap((root) => {
    const manifest = path.join(root, '.loadout-manifest.json');
    if (!fs.existsSync(manifest)) return [];
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { entries: { path: string }[] }).entries.map((entry) =>
      path.join(root, entry.path),
    );
  });
}

describe('what the real clients load equals the plan', () => {
  it("a skill named like Codex's own: codex gets nothing and lists each name once; claude-code is applied and lists what the plan says", async () => {
    const user = newUser('skill-creator');
    const applied = user.loadout('apply', '--project', user.project, '--json');
    expect(applied.status).toBe(1);
    expect(applied.stderr).toContain('not applied: codex (conflict)');
    const plan = applied.json<PlanJson>();
    expect(part(plan, 'claude-code').status).toBe('ok');
    expect(part(plan, 'codex').status).toBe('conflict');
    expect(fs.existsSync(path.join(user.home, '.agents/skills'))).toBe(false);

    const claude = await claudeListing(user.home, user.project);
    const claudePlan = part(plan, 'claude-code').sees.map((copy) => copy.name);
    expect(listedTwice(claude.names)).toEqual([]);
    expect(listedTwice(claudePlan)).toEqual([]);
    expect(new Set(claude.names)).toEqual(new Set(claudePlan));
    expect(claude.names).toEqual(expect.arrayContaining(['notes', 'café-skill', 'skill-creator', 'charts', 'deploy']));
    expect(claude.names).not.toContain('nodesc');

    const codex = await codexListing(user.home, user.project);
    const codexNames = codex.skills.map((entry) => entry.name);
    const codexPlan = part(plan, 'codex').sees.map((copy) => copy.name);
    expect(listedTwice(codexNames)).toEqual([]);
    expect(new Set(codexNames)).toEqual(new Set(codexPlan));
    expect(codexNames).toEqual(expect.arrayContaining(['deploy', 'deep', 'skill-creator']));
    expect(listedTwice(codexPromptSkillNames(user.home, user.project))).toEqual([]);

    const why = user
      .loadout('why', 'skill-creator', '--project', user.project, '--json')
      .json<{ runtimes: { runtime: string; copies: { state: string; owner: string }[] }[] }>();
    expect(why.runtimes.find((entry) => entry.runtime === 'codex')?.copies.map((copy) => [copy.owner, copy.state])).toEqual([
      ['loadout', 'held'],
      ['builtin', 'present'],
    ]);
  });

  it('a skill named like a Claude Code bundled one: claude-code gets nothing; codex is applied and lists what the plan says', async () => {
    const user = newUser('claude-api');
    const applied = user.loadout('apply', '--project', user.project, '--json');
    expect(applied.status).toBe(1);
    const plan = applied.json<PlanJson>();
    expect(part(plan, 'claude-code').status).toBe('conflict');
    expect(part(plan, 'codex').status).toBe('ok');
    expect(fs.existsSync(path.join(user.home, '.claude/skills'))).toBe(false);
    expect(
      part(plan, 'codex')
        .changes.filter((change) => change.action === 'skip')
        .map((change) => [change.name, change.reason]),
    ).toEqual([
      ['nodesc', 'Codex does not load a skill without a description'],
      ['nofm', 'Codex does not load a SKILL.md without frontmatter'],
    ]);

    const codex = await codexListing(user.home, user.project);
    const codexNames = codex.skills.map((entry) => entry.name);
    const codexPlan = part(plan, 'codex').sees.map((copy) => copy.name);
    expect(listedTwice(codexNames)).toEqual([]);
    expect(new Set(codexNames)).toEqual(new Set(codexPlan));
    expect(codexNames).toEqual(expect.arrayContaining(['notes', 'café-skill', 'claude-api', 'charts', 'deploy', 'deep']));

    const claude = await claudeListing(user.home, user.project);
    expect(listedTwice(claude.names)).toEqual([]);
    expect(new Set(claude.names)).toEqual(new Set(part(plan, 'claude-code').sees.map((copy) => copy.name)));
  });

  it('every folder apply writes passes the Agent Skills reference validator', () => {
    const user = newUser('skill-creator');
    user.loadout('apply', '--project', user.project, '--runtime', 'claude-code', '--json');
    const second = newUser('claude-api');
    second.loadout('apply', '--project', second.project, '--runtime', 'codex', '--json');
    const folders = [
      ...writtenFolders(path.join(user.home, '.claude/skills'), path.join(user.project, '.claude/skills')),
      ...writtenFolders(path.join(second.home, '.agents/skills')),
    ];
    expect(folders.map((folder) => path.basename(folder)).sort()).toEqual([
      'café-skill',
      'café-skill',
      'charts',
      'charts',
      'claude-api',
      'deploy',
      'notes',
      'notes',
      'skill-creator',
    ]);
    for (const folder of folders) {
      const verdict = skillsRefValidate(folder);
      expect(verdict.ok, verdict.output).toBe(true);
    }
  });
});

describe("Loadout's lists of what the clients bring themselves match the pinned clients", () => {
  it('Claude Code lists exactly the kept bundled names on a fresh home', async () => {
    const home = testdir({ work: {} });
    const claude = await claudeListing(home, path.join(home, 'work'));
    expect([...claude.names].sort()).toEqual([...CLAUDE_CODE_COMPILED_IN.names].sort());
  });

  it('Codex installs exactly the kept system skills at its first start', async () => {
    const home = testdir({ work: {} });
    const codex = await codexListing(home, path.join(home, 'work'));
    expect(
      codex.skills
        .filter((entry) => entry.scope === 'system')
        .map((entry) => entry.name)
        .sort(),
    ).toEqual([...CODEX_SYSTEM_SKILLS.names]);
    expect(
      fs
        .readdirSync(path.join(home, '.codex/skills/.system'))
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual([...CODEX_SYSTEM_SKILLS.names]);
  });
});

describe('the environment, as each client reads it', () => {
  /** The personal skills folder Claude Code's debug log names, resolved against where it started. */
  const claudeUserRoot = (listing: { loadingFrom: string }, cwd: string): string =>
    path.resolve(cwd, /user=(.*?), project=/.exec(listing.loadingFrom)?.[1] ?? '?');

  it.each([
    ['unset', undefined, '~/.claude/skills'],
    ['set but empty', '', '<project>/skills'],
    ['absolute', 'ABS', '$CLAUDE_CONFIG_DIR/skills'],
  ])('CLAUDE_CONFIG_DIR %s', async (_title, value, planned) => {
    const user = newUser('unused-name', { plugin: false });
    const env: Record<string, string> =
      value === undefined ? {} : { CLAUDE_CONFIG_DIR: value === 'ABS' ? path.join(user.base, 'claude-config') : value };
    const claude = await claudeListing(user.home, user.project, env);
    const plan = runCli(user.workspace, ['apply', '--dry-run', '--project', user.project, '--runtime', 'claude-code', '--json'], {
      HOME: user.home,
      ...env,
    }).json<PlanJson>();
    const root = part(plan, 'claude-code').roots.find((entry) => entry.scope === 'user');
    expect(root?.path).toBe(planned);
    const actual = claudeUserRoot(claude, user.project);
    const expected = planned
      .replace('~', user.home)
      .replace('<project>', user.project)
      .replace('$CLAUDE_CONFIG_DIR', env.CLAUDE_CONFIG_DIR ?? '');
    expect(actual).toBe(expected);
  });

  it.each([
    ['unset', undefined],
    ['set but empty', ''],
  ])('CODEX_HOME %s is ~/.codex', async (_title, value) => {
    const user = newUser('unused-name', { plugin: false });
    const env: Record<string, string> = value === undefined ? {} : { CODEX_HOME: value };
    const codex = await codexListing(user.home, user.project, env);
    expect(codex.codexHome).toBe(path.join(user.home, '.codex'));
    const plan = runCli(user.workspace, ['apply', '--dry-run', '--project', user.project, '--runtime', 'codex', '--json'], {
      HOME: user.home,
      ...env,
    }).json<PlanJson>();
    expect(part(plan, 'codex').roots.map((entry) => entry.path)).toContain('~/.codex/skills/.system');
  });
});
