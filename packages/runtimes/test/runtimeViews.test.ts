import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { agentSkillFolderProblems } from '@loadout/skills';
import { afterEach, describe, expect, it } from 'vitest';
import { explainSkill, RuntimeApplier, RuntimePlanner } from '../src/index.js';
import { MANIFEST_FILE } from '../src/RuntimeManifest.js';
import { readSkillBundle } from '../src/SkillBundle.js';
import { RuntimeEnvironment, runtimeEnvironmentFrom } from '../src/RuntimeEnvironment.js';
import type { RuntimeReport } from '../src/RuntimePlan.js';
import { closeLoadouts, installPlugin, machine, type Machine, openLoadout, openSession, skill } from '../src/testing/index.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

function part(report: { runtimes: readonly RuntimeReport[] }, name: string): RuntimeReport {
  const found = report.runtimes.find((candidate) => candidate.runtime === name);
  if (found === undefined) throw new Error(`no ${name} in the plan`);
  return found;
}

function seen(report: { runtimes: readonly RuntimeReport[] }, name: string): string[] {
  return part(report, name).sees.map((copy) => copy.name);
}

const statuses = (report: { runtimes: readonly RuntimeReport[] }): Record<string, string> =>
  Object.fromEntries(report.runtimes.map((candidate) => [candidate.runtime, candidate.status]));

describe('built-in and managed skills are part of the plan', () => {
  it("a skill named like one of Codex's system skills is a conflict for codex on a fresh home; claude-code is applied", async () => {
    const m = machine({
      capabilities: { skills: { 'skill-creator': { 'SKILL.md': skill('skill-creator') }, notes: { 'SKILL.md': skill('notes') } } },
    });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({});
    expect(result.ok).toBe(false);
    expect(statuses(result)).toMatchObject({
      'claude-code': 'ok',
      codex: 'conflict',
      goose: 'blocked',
      opencode: 'blocked',
      cursor: 'unconfirmed',
    });
    const conflict = part(result, 'codex').findings.find((finding) => finding.code === 'RUNTIME_CONFLICT')?.message;
    expect(conflict).toContain('$CODEX_HOME/skills/.system/skill-creator (installed by the runtime at its first start)');
    expect(fs.existsSync(path.join(m.home, '.claude/skills/skill-creator/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.agents/skills'))).toBe(false);
    expect(part(result, 'goose').findings.map((finding) => finding.message)).toContain(
      'goose: nothing is written into ~/.agents/skills: codex also writes there and has a conflict',
    );
    // The view says what codex lists: its own system skills, once each.
    expect(seen(result, 'codex').sort()).toEqual([
      'create-statusline',
      'imagegen',
      'openai-docs',
      'review-agent',
      'skill-creator',
      'skill-installer',
    ]);

    // A previous conflict never fails a later apply of a runtime it does not touch.
    expect((await applier.apply({ runtimes: ['claude-code'] })).ok).toBe(true);
  });

  it('a skill named like a Claude Code bundled skill is a conflict for claude-code; codex and the .agents readers are applied', async () => {
    const m = machine({ capabilities: { skills: { 'claude-api': { 'SKILL.md': skill('claude-api') } } } });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({});
    expect(statuses(result)).toMatchObject({ 'claude-code': 'conflict', codex: 'ok', 'copilot-vscode': 'ok', goose: 'ok' });
    expect(part(result, 'claude-code').findings[0]?.message).toContain('claude-code itself (compiled into the runtime)');
    expect(fs.existsSync(path.join(m.home, '.agents/skills/claude-api/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/claude-api'))).toBe(false);
    expect(seen(result, 'claude-code').filter((name) => name === 'claude-api')).toEqual(['claude-api']);
  });

  it('managed (admin) skills of either runtime conflict with a Loadout skill of the same name', async () => {
    const m = machine({
      capabilities: { skills: { policy: { 'SKILL.md': skill('policy') }, audit: { 'SKILL.md': skill('audit') } } },
      machineWide: {
        'etc-claude-code': { '.claude': { skills: { policy: { 'SKILL.md': skill('policy', 'The company policy.\n') } } } },
        'etc-codex': { skills: { audit: { 'SKILL.md': skill('audit', 'The admin audit.\n') } } },
      },
    });
    const container = openLoadout(m);
    const session = await openSession(container, null);
    const report = (await resolve(container, RuntimePlanner).plan(session, ['claude-code', 'codex'])).report();
    session.dispose();
    expect(statuses(report)).toEqual({ 'claude-code': 'conflict', codex: 'conflict' });
    expect(part(report, 'claude-code').findings[0]?.message).toContain("<claude-managed>/.claude/skills/policy (an administrator's");
    expect(part(report, 'codex').findings[0]?.message).toContain("<codex-admin>/skills/audit (an administrator's");
  });
});

describe('a conflict blocks only what it touches', () => {
  it("a runtime reading another's folder holds back only the name it is in conflict over", async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') }, pdf: { 'SKILL.md': skill('pdf') } } },
      home: { '.agents': { skills: { notes: { 'SKILL.md': skill('notes', 'Hand-made.\n') } } } },
    });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({});
    // Copilot, OpenCode and Goose read ~/.claude/skills too: writing notes there would show them two bundles.
    expect(statuses(result)).toMatchObject({
      'claude-code': 'blocked',
      codex: 'conflict',
      'copilot-vscode': 'conflict',
      goose: 'conflict',
    });
    expect(part(result, 'claude-code').findings.find((finding) => finding.code === 'RUNTIME_BLOCKED')?.message).toBe(
      'claude-code: skill "notes" is not written into $CLAUDE_CONFIG_DIR/skills: copilot-vscode, opencode, goose also read that folder and would see two bundles of that name',
    );
    expect(fs.readdirSync(path.join(m.home, '.claude/skills')).sort()).toEqual([MANIFEST_FILE, 'pdf']);
    expect(fs.readdirSync(path.join(m.home, '.agents/skills'))).toEqual(['notes']);

    // Only the runtimes asked for are judged: codex's conflict then leaves claude-code whole.
    const both = await resolve(openLoadout(m), RuntimeApplier).apply({ runtimes: ['claude-code', 'codex'] });
    expect(statuses(both)).toEqual({ 'claude-code': 'ok', codex: 'conflict' });
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
  });
});

describe('runtime admission and folder names', () => {
  const nodesc = { 'SKILL.md': '---\nname: nodesc\n---\nNo description here.\n' };
  const nofm = { 'SKILL.md': '# Just a heading\n\nNo frontmatter.\n' };

  it('a skill a runtime will not load is planned as skip, naming the runtime and the rule; nothing is written', async () => {
    const m = machine({ capabilities: { skills: { nodesc, nofm, notes: { 'SKILL.md': skill('notes') } } } });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.ok).toBe(true);
    const codex = part(result, 'codex');
    expect(codex.changes.filter((change) => change.action === 'skip').map((change) => [change.name, change.reason])).toEqual([
      ['nodesc', 'Codex does not load a skill without a description'],
      ['nofm', 'Codex does not load a SKILL.md without frontmatter'],
    ]);
    const claudeSkip = part(result, 'claude-code').findings.find(
      (finding) => finding.code === 'SKILL_SKIPPED' && finding.message.includes('nodesc'),
    );
    expect(claudeSkip?.message).toBe(
      'claude-code: skill "nodesc" is skipped: not a valid Agent Skills folder (description is missing or empty)',
    );
    expect(fs.readdirSync(path.join(m.home, '.agents/skills')).sort()).toEqual([MANIFEST_FILE, 'notes']);
    expect(fs.readdirSync(path.join(m.home, '.claude/skills')).sort()).toEqual([MANIFEST_FILE, 'notes']);
  });

  it('a project skill Codex reads in place but refuses is not in its view, and the plan says why', async () => {
    const m = machine({ project: { skills: { nodesc } } });
    const container = openLoadout(m);
    const session = await openSession(container, m.project);
    const report = (await resolve(container, RuntimePlanner).plan(session, ['codex'])).report();
    session.dispose();
    expect(seen(report, 'codex')).not.toContain('nodesc');
    expect(part(report, 'codex').changes).toEqual([
      expect.objectContaining({ action: 'skip', name: 'nodesc', reason: 'Codex does not load a skill without a description' }),
    ]);
  });

  it("the folder written is the skill's valid Agent Skills name, Unicode included, and passes the validator's rules", async () => {
    const m = machine({
      capabilities: { skills: { 'café-skill': { 'SKILL.md': skill('café-skill') }, 日本語: { 'SKILL.md': skill('日本語') } } },
    });
    const container = openLoadout(m);
    const session = await openSession(container, null);
    expect(session.diagnostics.filter((finding) => finding.code === 'SKILL_NAME_RULES')).toEqual([]);
    session.dispose();
    const result = await resolve(container, RuntimeApplier).apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.ok).toBe(true);
    for (const root of ['.claude/skills', '.agents/skills']) {
      const folders = fs
        .readdirSync(path.join(m.home, root))
        .filter((name) => name !== MANIFEST_FILE)
        .sort();
      expect(folders).toEqual(['café-skill', '日本語']);
      for (const folder of folders) {
        expect(agentSkillFolderProblems(fs.readFileSync(path.join(m.home, root, folder, 'SKILL.md'), 'utf8'), folder)).toEqual([]);
      }
    }
  });

  it('a skill whose name is not a valid Agent Skills name is skipped, never written under a made-up folder name', async () => {
    const m = machine({ capabilities: { skills: { loud: { 'SKILL.md': skill('Loud Skill') } } } });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ runtimes: ['claude-code'] });
    expect(part(result, 'claude-code').changes).toEqual([
      expect.objectContaining({ action: 'skip', name: 'loud-skill', reason: expect.stringContaining('name must be lower-case') }),
    ]);
    expect(fs.existsSync(path.join(m.home, '.claude/skills'))).toBe(false);
  });

  it('a skill with extra frontmatter fields or a long description is written for the runtimes that load it, with SKILL_NOT_PORTABLE', async () => {
    const m = machine({
      capabilities: {
        skills: {
          versioned: {
            'SKILL.md': '---\nname: versioned\ndescription: Has a version.\nversion: 1.0.0\nuser-invocable: true\n---\nBody.\n',
          },
          wordy: { 'SKILL.md': `---\nname: wordy\ndescription: ${'w'.repeat(1100)}\n---\nBody.\n` },
        },
      },
    });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.ok).toBe(true);
    for (const runtime of ['claude-code', 'codex']) {
      expect(part(result, runtime).changes.map((change) => [change.action, change.name])).toEqual([
        ['create', 'versioned'],
        ['create', 'wordy'],
      ]);
      const notes = part(result, runtime).findings.filter((finding) => finding.code === 'SKILL_NOT_PORTABLE');
      expect(notes.map((finding) => finding.message)).toEqual([
        expect.stringMatching(
          /skill "versioned" is written though it breaks the Agent Skills rules \(fields user-invocable, version are not Agent Skills fields.*\): claude-code, codex load it/,
        ),
        expect.stringMatching(/skill "wordy" is written though .*description is longer than 1024 characters\): claude-code, codex load it/),
      ]);
    }
    expect(fs.existsSync(path.join(m.home, '.claude/skills/versioned/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.agents/skills/wordy/SKILL.md'))).toBe(true);
  });

  it("three plugins each shipping access: all three are the session's, the first plugin's is written, the others skipped with the reason", async () => {
    const m = machine({});
    const container = openLoadout(m);
    for (const plugin of ['discord', 'telegram', 'imessage'])
      installPlugin(container, m, plugin, {
        skills: { access: { 'SKILL.md': skill('access') }, [`${plugin}-only`]: { 'SKILL.md': skill(`${plugin}-only`) } },
      });
    const session = await openSession(container, m.project);
    expect(
      session
        .recordsOf('skill')
        .filter((record) => record.id === 'access')
        .map((record) => record.plugin),
    ).toEqual(['discord', 'telegram', 'imessage']);
    expect(session.diagnostics.filter((finding) => finding.code === 'SHADOWED')).toEqual([]);
    expect(session.find('skill', 'imessage:access')?.plugin).toBe('imessage');
    session.dispose();
    const result = await resolve(container, RuntimeApplier).apply({ runtimes: ['claude-code'] });
    expect(result.ok).toBe(true);
    const changes = part(result, 'claude-code').changes;
    expect(changes.filter((change) => change.action === 'create').map((change) => change.name)).toEqual([
      'access',
      'discord-only',
      'imessage-only',
      'telegram-only',
    ]);
    expect(changes.filter((change) => change.action === 'skip').map((change) => [change.name, change.reason])).toEqual([
      ['access', expect.stringContaining("plugin discord's takes the name; telegram:access is not copied")],
      ['access', expect.stringContaining("plugin discord's takes the name; imessage:access is not copied")],
    ]);
    expect(part(result, 'claude-code').findings.filter((finding) => finding.code === 'SKILL_SAME_NAME_IN_PLUGINS')).toHaveLength(2);
  });

  it('a folder an older Loadout wrote under the ASCII id is retired and the skill written under its name', async () => {
    const m = machine({ capabilities: { skills: { 'café-skill': { 'SKILL.md': skill('café-skill') } } } });
    const root = path.join(m.home, '.claude/skills');
    fs.mkdirSync(path.join(root, 'caf-skill'), { recursive: true });
    fs.writeFileSync(path.join(root, 'caf-skill/SKILL.md'), skill('café-skill'));
    const hash = readSkillBundle(root, path.join(root, 'caf-skill'))?.hash;
    const source = { id: 'caf-skill', level: 'global', plugin: null };
    fs.writeFileSync(
      path.join(root, MANIFEST_FILE),
      JSON.stringify({ version: 1, entries: [{ path: 'caf-skill', name: 'caf-skill', hash, source, writtenAt: 'then' }] }),
    );
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ runtimes: ['claude-code'] });
    expect(part(result, 'claude-code').changes.map((change) => [change.action, change.path])).toEqual([
      ['retire', '$CLAUDE_CONFIG_DIR/skills/caf-skill'],
      ['create', '$CLAUDE_CONFIG_DIR/skills/café-skill'],
    ]);
    expect(fs.readdirSync(root).sort()).toEqual([MANIFEST_FILE, 'café-skill']);
  });
});

describe('the environment as each client reads it', () => {
  it('CLAUDE_CONFIG_DIR set but empty: Claude Code reads skills/ of its working folder, so Loadout writes no personal skills', async () => {
    const m: Machine = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const container = openLoadout(m);
    container.register(RuntimeEnvironment, { useValue: runtimeEnvironmentFrom({ ...m.env, CLAUDE_CONFIG_DIR: '' }) });
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project, runtimes: ['claude-code'] });
    expect(result.findings.map((finding) => finding.code)).toEqual(['RUNTIME_FOLDER_RELATIVE']);
    const roots = part(result, 'claude-code').roots.map((root) => [root.path, root.writes]);
    expect(roots).toContainEqual(['<project>/skills', null]);
    expect(fs.existsSync(path.join(m.home, '.claude/skills'))).toBe(false);
    expect(fs.existsSync(path.join(m.project, 'skills'))).toBe(false);
  });
});

describe('planning per physical root', () => {
  it('one write into ~/.agents/skills serves every runtime that reads it, and the unconfirmed ones see it too', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({});
    expect(result.ok).toBe(true);
    expect(result.changeCount).toBe(2);
    for (const name of ['codex', 'copilot-vscode', 'copilot-cli', 'opencode', 'goose']) {
      expect(
        part(result, name).changes.map((change) => change.path),
        name,
      ).toEqual(['~/.agents/skills/notes']);
    }
    for (const name of ['cursor', 'windsurf', 'amp']) {
      expect(part(result, name).sees.filter((copy) => copy.name === 'notes').length, name).toBeGreaterThan(0);
    }
    expect(seen(result, 'antigravity')).toEqual([]);
    expect(fs.existsSync(path.join(m.home, '.cursor', 'skills'))).toBe(false);
    const shared = part(result, 'codex').roots.find((root) => root.path === '~/.agents/skills');
    expect(shared?.sharedWith).toEqual(expect.arrayContaining(['copilot-vscode', 'goose', 'cursor', 'amp']));
  });

  it('nested project skills Codex finds below the repository root are in its view', async () => {
    const m = machine({
      repo: { '.agents': { skills: { team: { lint: { 'SKILL.md': skill('lint') } } } } },
      project: { skills: { group: { deep: { 'SKILL.md': skill('deep') } } } },
    });
    const container = openLoadout(m);
    const session = await openSession(container, m.project);
    const report = (await resolve(container, RuntimePlanner).plan(session, ['codex'])).report();
    session.dispose();
    const copies = part(report, 'codex').sees.filter((copy) => copy.owner !== 'builtin');
    expect(copies.map((copy) => [copy.name, copy.path])).toEqual([
      ['deep', '<project>/.agents/skills/group/deep'],
      ['lint', '<repo>/.agents/skills/team/lint'],
    ]);
  });
});

describe('why', () => {
  it('lists every copy each runtime would see, whose it is, and which wins', async () => {
    const m = machine({
      capabilities: { skills: { 'claude-api': { 'SKILL.md': skill('claude-api') } } },
      home: { '.claude': { skills: { other: { 'SKILL.md': skill('other') } } } },
    });
    const container = openLoadout(m);
    installPlugin(container, m, 'tools', { skills: { pdf: { 'SKILL.md': skill('pdf') } } });
    const session = await openSession(container, m.project);
    const plan = await resolve(container, RuntimePlanner).plan(session);
    session.dispose();
    const claude = explainSkill(plan, 'claude-api').runtimes.find((entry) => entry.runtime === 'claude-code');
    expect(claude?.status).toBe('conflict');
    expect(claude?.copies.map((copy) => [copy.path, copy.owner, copy.state, copy.wins])).toEqual([
      ['$CLAUDE_CONFIG_DIR/skills/claude-api', 'loadout', 'held', false],
      [null, 'builtin', 'compiled-in', true],
    ]);
    expect(claude?.reason).toBe("claude-code loads one copy; Loadout's copy is held back: claude-code would see two bundles of one name");
    const pdf = explainSkill(plan, 'pdf');
    const codex = pdf.runtimes.find((entry) => entry.runtime === 'codex');
    expect(codex?.copies).toEqual([
      expect.objectContaining({ path: '~/.agents/skills/pdf', owner: 'plugin', plugin: 'tools', wins: true }),
    ]);
    expect(pdf.runtimes.find((entry) => entry.runtime === 'cursor')?.reason).toBe('cursor loads one copy');
  });
});
