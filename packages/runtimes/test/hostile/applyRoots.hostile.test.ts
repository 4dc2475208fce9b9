import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { removeTestdirs, writeTree } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeApplier } from '../../src/index.js';
import { TRASH_FOLDER } from '../../src/RuntimeTrash.js';
import { closeLoadouts, installPlugin, machine, openLoadout, serverDocument, skill, snapshot } from '../../src/testing/index.js';

/** Hostile runtime folders and skills against `apply` (issue 11: 3, 21, 24, S9). */

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

type Findings = { runtime: string; status: string; findings: { code: string; message: string; path?: string }[] }[];
const findingsOf = (runtimes: Findings, code: string) =>
  runtimes.flatMap((part) =>
    part.findings.filter((finding) => finding.code === code).map((finding) => ({ runtime: part.runtime, ...finding })),
  );

describe('runtime roots that are not where they claim', () => {
  it('3 a committed .claude/skills link into the home folder is refused: nothing written there, the rest applied', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      project: { skills: { deploy: { 'SKILL.md': skill('deploy'), 'run.sh': '#!/bin/sh\n' } } },
      home: { '.claude': { skills: {} } },
    });
    fs.mkdirSync(path.join(m.project, '.claude'));
    fs.symlinkSync(path.join(m.home, '.claude', 'skills'), path.join(m.project, '.claude', 'skills'));
    const applier = resolve(openLoadout(m), RuntimeApplier);

    const result = await applier.apply({ project: m.project });
    const refused = findingsOf(result.runtimes as unknown as Findings, 'RUNTIME_ROOT_OUTSIDE');
    expect(refused.map((finding) => finding.runtime)).toEqual(['claude-code']);
    expect(refused[0]?.message).toContain('<project>/.claude/skills');
    expect(refused[0]?.message).not.toContain(m.home);
    expect(result.ok).toBe(false);
    // The project's skill never reaches the user's folder; the user's own skills are still written there.
    expect(fs.existsSync(path.join(m.home, '.claude/skills/deploy'))).toBe(false);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
    // Codex reads the project's skill in place and gets its user skill.
    expect(fs.existsSync(path.join(m.home, '.agents/skills/notes/SKILL.md'))).toBe(true);
  });

  it('3 a link anywhere on the way out of the project (the .claude folder itself) is refused too', async () => {
    const m = machine({ project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } } });
    const outside = path.join(m.base, 'outside');
    writeTree(outside, { skills: {} });
    fs.symlinkSync(outside, path.join(m.project, '.claude'));
    const before = snapshot(outside);
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ project: m.project });
    expect(findingsOf(result.runtimes as unknown as Findings, 'RUNTIME_ROOT_OUTSIDE')).toHaveLength(1);
    expect(snapshot(outside)).toEqual(before);
    // A dry run says the same and writes nothing either.
    const dry = await resolve(openLoadout(m), RuntimeApplier).apply({ project: m.project, mode: 'dry-run' });
    expect(findingsOf(dry.runtimes as unknown as Findings, 'RUNTIME_ROOT_OUTSIDE')).toHaveLength(1);
  });

  it("3 a committed .mcp.json link to the user's ~/.claude.json is neither read nor written", async () => {
    const m = machine({ project: { servers: { 'proj.json': serverDocument({ command: 'node', args: ['tools/server.js'] }) } } });
    const userConfig = path.join(m.home, '.claude', '.claude.json');
    fs.mkdirSync(path.dirname(userConfig), { recursive: true });
    fs.writeFileSync(userConfig, '{\n  "mcpServers": {}\n}\n');
    fs.symlinkSync(userConfig, path.join(m.project, '.mcp.json'));
    const before = fs.readFileSync(userConfig, 'utf8');
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ project: m.project, runtimes: ['claude-code'] });
    const refused = findingsOf(result.runtimes as unknown as Findings, 'RUNTIME_ROOT_OUTSIDE');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.message).toContain('<project>/.mcp.json leads out of <project>');
    expect(fs.readFileSync(userConfig, 'utf8')).toBe(before);
    expect(fs.lstatSync(path.join(m.project, '.mcp.json')).isSymbolicLink()).toBe(true);
    expect(result.ok).toBe(false);
  });

  it('3 a link that stays inside the project is followed', async () => {
    const m = machine({ project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } } });
    fs.mkdirSync(path.join(m.project, 'agent-skills'));
    fs.mkdirSync(path.join(m.project, '.claude'));
    fs.symlinkSync('../agent-skills', path.join(m.project, '.claude', 'skills'));
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ project: m.project });
    expect(findingsOf(result.runtimes as unknown as Findings, 'RUNTIME_ROOT_OUTSIDE')).toEqual([]);
    expect(fs.existsSync(path.join(m.project, 'agent-skills/deploy/SKILL.md'))).toBe(true);
  });
});

describe('a project that is the home folder', () => {
  it('21 apply --project "$HOME" twice: the second run changes nothing and retires nothing', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    writeTree(m.home, { '.agents': { skills: { mine: { 'SKILL.md': skill('mine') } } } });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    // The user's folders first, as a plain `loadout apply` leaves them.
    expect((await applier.apply({ project: null })).retired).toEqual([]);
    const first = await applier.apply({ project: m.home });
    expect(first.retired).toEqual([]);
    const written = snapshot(m.home);
    const second = await applier.apply({ project: m.home });
    expect(second.retired).toEqual([]);
    expect(second.changeCount).toBe(0);
    expect(snapshot(m.home)).toEqual(written);
    // What the plain apply wrote for Codex into ~/.agents/skills (the project's own capability
    // folder now) stays there, and Claude Code's personal folder keeps the user's skill.
    expect(fs.existsSync(path.join(m.home, '.agents/skills/notes/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
    expect((await applier.apply({ project: null })).retired).toEqual([]);
  });
});

describe('a home folder that is a repository (dotfiles) opened as the project', () => {
  it("21 one folder that is the project's and the user's root gets both sets, planned once", async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    writeTree(m.home, { '.agents': { skills: { mine: { 'SKILL.md': skill('mine') } } } });
    execFileSync('git', ['init', '-q'], { cwd: m.home });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const first = await applier.apply({ project: m.home });
    expect(first.ok).toBe(true);
    expect(first.retired).toEqual([]);
    // Claude Code reads ~/.claude/skills as the project's folder and as the personal one: both sets land there.
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/mine/SKILL.md'))).toBe(true);
    const written = snapshot(m.home);
    const second = await applier.apply({ project: m.home });
    expect(second.retired).toEqual([]);
    expect(second.changeCount).toBe(0);
    expect(snapshot(m.home)).toEqual(written);
  });
});

describe('a skill folder holding a link loop', () => {
  it('24 a self-link in a plugin skill is a finding on that skill; every runtime gets the rest', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const container = openLoadout(m);
    installPlugin(container, m, 'bad', { skills: { loop: { 'SKILL.md': skill('loop') }, fine: { 'SKILL.md': skill('fine') } } });
    fs.symlinkSync('self', path.join(m.places.pluginsDir, 'bad/skills/loop/self'));
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project });
    const text = JSON.stringify(result);
    expect(text).not.toContain('ELOOP:');
    expect(text).not.toContain(m.base);
    const found = findingsOf(result.runtimes as unknown as Findings, 'SKILL_SKIPPED').filter((finding) =>
      finding.message.includes('"loop"'),
    );
    expect(found.map((finding) => finding.runtime)).toEqual(expect.arrayContaining(['claude-code', 'codex']));
    expect(found[0]?.message).toMatch(/LINK_LOOP: skills\/loop\/self/);
    expect(result.ok).toBe(true);
    for (const folder of ['.claude/skills', '.agents/skills']) {
      expect(fs.existsSync(path.join(m.home, folder, 'notes/SKILL.md'))).toBe(true);
      expect(fs.existsSync(path.join(m.home, folder, 'fine/SKILL.md'))).toBe(true);
      expect(fs.existsSync(path.join(m.home, folder, 'loop'))).toBe(false);
    }
  });
});

describe('a damaged trash entry', () => {
  it('S9 is listed by apply restore with its problem, not hidden', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') }, old: { 'SKILL.md': skill('old') } } } });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    await applier.apply({ project: null });
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/old'), { recursive: true });
    const retired = (await applier.apply({ project: null })).retired;
    expect(retired.length).toBeGreaterThan(0);
    const damaged = retired[0] as (typeof retired)[number];
    fs.writeFileSync(path.join(m.places.dataDir, TRASH_FOLDER, damaged.id, 'entry.json'), '{ "version": 1, "id": ');
    const listed = applier.listRetired();
    expect(listed.damaged).toEqual([{ id: damaged.id, problem: expect.stringMatching(/^entry\.json cannot be read: .*not valid JSON/) }]);
    expect(JSON.stringify(listed.damaged)).not.toContain(m.base);
    await expect(applier.restore(damaged.id)).rejects.toMatchObject({ code: 'TRASH_ENTRY_DAMAGED' });
    // The intact entries are listed as before, and the damaged one's files are kept.
    expect(listed.retired.map((entry) => entry.id)).toEqual(retired.slice(1).map((entry) => entry.id));
    expect(fs.existsSync(path.join(m.places.dataDir, TRASH_FOLDER, damaged.id, 'bundle/SKILL.md'))).toBe(true);
  });
});
