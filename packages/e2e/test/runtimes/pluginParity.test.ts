import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { CLAUDE_CODE_COMPILED_IN } from '@loadout/runtimes';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeListing, claudeOnPath, clientMcp, codexListing, skillsRefValidate } from './realClients.js';

afterEach(() => removeTestdirs());

interface PlanJson {
  ok: boolean;
  runtimes: {
    runtime: string;
    status: string;
    changes: { action: string; name: string; reason: string }[];
    sees: { name: string }[];
    findings: { code: string; message: string }[];
  }[];
}

const skillFolder = (name: string, more: string, description = `${name} does one thing well.`): TreeDescription => ({
  'SKILL.md': `---\nname: ${name}\ndescription: ${description}\n${more}---\nUse ${name} when asked.\n`,
});

/**
 * A plugin shaped like those of claude-plugins-official and wshobson/agents: a Claude Code manifest
 * and skills that break the Agent Skills reference validator the ways real ones do (fields it does
 * not list, a description of 1,100 characters), beside one that keeps every rule.
 */
const NOT_PORTABLE: Record<string, string> = {
  versioned: 'version: 1.2.0\n',
  invocable: 'user-invocable: true\n',
  tooled: 'tools: Read, Grep\n',
  'model-off': 'disable-model-invocation: true\n',
  'allowed-list': 'allowed-tools: Read Grep\nversion: 2.0.0\n',
};

function kitPlugin(base: string): string {
  const skills: Record<string, TreeDescription> = { plain: skillFolder('plain', '') };
  for (const [name, more] of Object.entries(NOT_PORTABLE)) skills[name] = skillFolder(name, more);
  skills.wordy = skillFolder('wordy', '', `Long on purpose. ${'w'.repeat(1100)}`);
  return gitRepo(path.join(base, 'sources', 'kit'), {
    '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'kit', version: '1.0.0', description: 'A kit' }) },
    skills,
  });
}

const part = (plan: PlanJson, runtime: string) => {
  const found = plan.runtimes.find((candidate) => candidate.runtime === runtime);
  if (found === undefined) throw new Error(`no ${runtime} in the plan`);
  return found;
};

describe("the runtime's admission, not the validator's: skills real clients load are written", () => {
  it('extra frontmatter fields and a 1,100-character description: written for claude-code and codex, listed by both, warned as not portable', async () => {
    const base = testdir({});
    const home = path.join(base, 'home');
    const workspace = path.join(base, 'workspace');
    const project = gitRepo(path.join(home, 'work', 'app'), { 'README.md': 'app\n' });
    gitRepo(path.join(workspace, 'capabilities'), { 'README.md': 'mine\n' });
    const plugin = kitPlugin(base);
    const wanted = ['plain', 'wordy', ...Object.keys(NOT_PORTABLE)].sort();
    for (const name of wanted.filter((name) => name !== 'plain')) {
      expect(skillsRefValidate(path.join(plugin, 'skills', name)).ok, `${name} should fail the reference validator`).toBe(false);
    }
    // The plan is made against the Claude Code that is asked below (2.1.197 lists a plugin's skills by their bare names).
    const PATH = `${claudeOnPath(base, '2.1.197')}:${process.env.PATH ?? '/usr/bin:/bin'}`;
    const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, PATH });
    // `--yes`: skills granting tools (`tools`, `allowed-tools`) are held until the plugin is approved.
    const installed = loadout('plugins', 'install', pathToFileURL(plugin).href, '--yes', '--json');
    expect(installed.status, installed.stderr).toBe(0);

    const session = loadout('session', '--json').json<{ diagnostics: { code: string; message: string }[] }>();
    const sessionNotes = session.diagnostics.filter((finding) => finding.code === 'SKILL_NOT_PORTABLE');
    expect(sessionNotes.length).toBe(wanted.length - 1);
    for (const note of sessionNotes) expect(note.message).toMatch(/^plugin kit: /);

    const applied = loadout('apply', '--project', project, '--runtime', 'claude-code', '--runtime', 'codex', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    const plan = applied.json<PlanJson>();
    // Codex gets copies; Claude Code reads the plugin itself, in place: nothing of it is copied there.
    expect(part(plan, 'codex').changes.filter((change) => change.action === 'skip')).toEqual([]);
    expect(
      part(plan, 'codex')
        .changes.map((change) => change.name)
        .sort(),
    ).toEqual(wanted);
    const notes = part(plan, 'codex').findings.filter((finding) => finding.code === 'SKILL_NOT_PORTABLE');
    expect(notes.length).toBe(wanted.length - 1);
    for (const note of notes) expect(note.message).toContain('from plugin kit');
    const inPlace = part(plan, 'claude-code').changes.filter((change) => change.action === 'skip');
    expect(inPlace.map((change) => change.name).sort()).toEqual(wanted);
    for (const change of inPlace) expect(change.reason).toContain('reads plugin kit in place');

    const claude = await claudeListing(home, project);
    expect(claude.names).toEqual(expect.arrayContaining(wanted));
    expect(new Set(claude.names)).toEqual(new Set(part(plan, 'claude-code').sees.map((copy) => copy.name)));
    const codex = await codexListing(home, project);
    const codexNames = codex.skills.map((entry) => entry.name);
    expect(codexNames).toEqual(expect.arrayContaining(wanted));
    expect(codex.errors).toEqual([]);
    expect(new Set(codexNames)).toEqual(new Set(part(plan, 'codex').sees.map((copy) => copy.name)));

    // Every skill Claude Code loads from the same plugin natively (`--plugin-dir`), Loadout gave it.
    const nativeHome = path.join(base, 'native-home');
    fs.mkdirSync(path.join(nativeHome, 'work'), { recursive: true });
    const native = await claudeListing(nativeHome, path.join(nativeHome, 'work'), {}, '2.1.197', ['--plugin-dir', plugin]);
    const fromPlugin = native.names.filter((name) => !CLAUDE_CODE_COMPILED_IN.names.includes(name));
    expect(fromPlugin.sort()).toEqual(wanted);
    expect(claude.names).toEqual(expect.arrayContaining(fromPlugin));

    // The human summary line says some written skills are not portable.
    const again = loadout('apply', '--project', project, '--runtime', 'claude-code', '--runtime', 'codex', '--dry-run');
    expect(again.stdout).toMatch(/nothing written; 6 skills not portable \(SKILL_NOT_PORTABLE above\)/);
  }, 180_000);
});

describe('plugin namespaces: three plugins each shipping access and configure', () => {
  it('all three are kept and named by their plugin; Codex lists each name once from one folder, Claude Code reads the three plugins in place and lists every copy, and why says so', async () => {
    const base = testdir({});
    const home = path.join(base, 'home');
    const workspace = path.join(base, 'workspace');
    const project = gitRepo(path.join(home, 'work', 'app'), { 'README.md': 'app\n' });
    gitRepo(path.join(workspace, 'capabilities'), { 'README.md': 'mine\n' });
    // The plan is made against the Claude Code that is asked below (2.1.197 lists a plugin's skills by their bare names).
    const PATH = `${claudeOnPath(base, '2.1.197')}:${process.env.PATH ?? '/usr/bin:/bin'}`;
    const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, PATH });
    const channels = ['discord', 'telegram', 'imessage'];
    const repos = channels.map((channel) =>
      gitRepo(path.join(base, 'sources', channel), {
        '.claude-plugin': { 'plugin.json': JSON.stringify({ name: channel }) },
        skills: {
          access: skillFolder('access', '', `Manage who may message you on ${channel}.`),
          configure: skillFolder('configure', '', `Set up the ${channel} channel.`),
        },
      }),
    );
    for (const repo of repos) {
      const installed = loadout('plugins', 'install', pathToFileURL(repo).href, '--json');
      expect(installed.status, installed.stderr).toBe(0);
    }
    const session = loadout('session', '--json').json<{
      skills: { id: string; plugin: string | null }[];
      diagnostics: { code: string }[];
    }>();
    expect(session.skills.filter((skill) => skill.id === 'access').map((skill) => skill.plugin)).toEqual(channels);
    expect(session.diagnostics.filter((finding) => finding.code === 'SHADOWED')).toEqual([]);

    const applied = loadout('apply', '--project', project, '--runtime', 'claude-code', '--runtime', 'codex', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    const plan = applied.json<PlanJson>();
    const skipped = part(plan, 'codex')
      .changes.filter((change) => change.action === 'skip')
      .map((change) => change.name);
    expect(skipped.sort()).toEqual(['access', 'access', 'configure', 'configure']);
    // Claude Code reads the three plugins in place and lists every copy, as it does natively.
    const inPlace = part(plan, 'claude-code').changes.filter((change) => change.action === 'skip');
    expect(inPlace.map((change) => change.name).sort()).toEqual(['access', 'access', 'access', 'configure', 'configure', 'configure']);
    const claude = await claudeListing(home, project);
    expect(claude.names.filter((name) => name === 'access' || name === 'configure').sort()).toEqual([
      'access',
      'access',
      'access',
      'configure',
      'configure',
      'configure',
    ]);
    expect([...claude.names].sort()).toEqual(
      part(plan, 'claude-code')
        .sees.map((copy) => copy.name)
        .sort(),
    );
    const codex = await codexListing(home, project);
    expect(new Set(codex.skills.map((entry) => entry.name))).toEqual(new Set(part(plan, 'codex').sees.map((copy) => copy.name)));

    // Natively Claude Code lists every plugin's copy under the one name: a skills folder cannot.
    const nativeHome = path.join(base, 'native-home');
    fs.mkdirSync(path.join(nativeHome, 'work'), { recursive: true });
    const native = await claudeListing(
      nativeHome,
      path.join(nativeHome, 'work'),
      {},
      '2.1.197',
      repos.flatMap((repo) => ['--plugin-dir', repo]),
    );
    expect(native.names.filter((name) => name === 'access')).toHaveLength(3);

    const why = loadout('why', 'telegram:access', '--project', project, '--json');
    expect(why.status, why.stderr).toBe(0);
    const explained = why.json<{ runtimes: { runtime: string; skipped: { reason: string }[]; reason: string }[] }>();
    const claudeWhy = explained.runtimes.find((entry) => entry.runtime === 'claude-code');
    expect(claudeWhy?.skipped.map((skip) => skip.reason)).toEqual(
      expect.arrayContaining([expect.stringContaining('reads plugin telegram in place')]),
    );
    const codexWhy = explained.runtimes.find((entry) => entry.runtime === 'codex');
    expect(codexWhy?.skipped.map((skip) => skip.reason)).toEqual(
      expect.arrayContaining([expect.stringContaining('telegram:access is not copied')]),
    );
  }, 240_000);
});

describe("a plugin's SSE server", () => {
  it('reaches Claude Code, which runs SSE (from the plugin read in place), and is skipped with the reason for Codex', () => {
    const base = testdir({});
    const home = path.join(base, 'home');
    const workspace = path.join(base, 'workspace');
    const project = gitRepo(path.join(home, 'work', 'app'), { 'README.md': 'app\n' });
    gitRepo(path.join(workspace, 'capabilities'), { 'README.md': 'mine\n' });
    const repo = gitRepo(path.join(base, 'sources', 'streamer'), {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'streamer' }) },
      '.mcp.json': JSON.stringify({ events: { type: 'sse', url: 'http://127.0.0.1:9/sse' } }),
      skills: { watch: skillFolder('watch', '') },
    });
    // The plan is made against the Claude Code that is asked below (2.1.197 lists a plugin's skills by their bare names).
    const PATH = `${claudeOnPath(base, '2.1.197')}:${process.env.PATH ?? '/usr/bin:/bin'}`;
    const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, PATH });
    const installed = loadout('plugins', 'install', pathToFileURL(repo).href, '--yes', '--json');
    expect(installed.status, installed.stderr).toBe(0);
    const applied = loadout('apply', '--project', project, '--runtime', 'claude-code', '--runtime', 'codex', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    const plan = applied.json<{
      runtimes: { runtime: string; changes: { kind: string; action: string; name: string; reason: string }[] }[];
    }>();
    const mcpOf = (runtime: string) =>
      (plan.runtimes.find((entry) => entry.runtime === runtime)?.changes ?? []).filter((change) => change.kind === 'server');
    // Claude Code reads the plugin in place and runs its server itself: it is not written into ~/.claude.json too.
    expect(mcpOf('claude-code').find((change) => change.name === 'events')).toMatchObject({
      action: 'skip',
      reason: expect.stringContaining('runs it itself from plugin streamer'),
    });
    expect(mcpOf('codex').find((change) => change.name === 'events')).toMatchObject({
      action: 'skip',
      reason: expect.stringContaining('not HTTP+SSE'),
    });
    const claude = clientMcp('claude', home, project, ['list']);
    expect(claude.stdout).toContain('plugin:streamer:events');
    expect(claude.stdout).toContain('http://127.0.0.1:9/sse (SSE)');
  }, 120_000);
});
