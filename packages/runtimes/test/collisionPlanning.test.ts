import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { RACY_MS } from '@loadout/files';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeApplier, RuntimePlanner } from '../src/index.js';
import { type PlanReport, type RuntimeReport } from '../src/RuntimePlan.js';
import { closeLoadouts, installPlugin, machine, type Machine, openLoadout, openSession, skill, snapshot } from '../src/testing/index.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

async function planFor(m: Machine, runtimes: string[] = [], project: string | null = m.project): Promise<PlanReport> {
  const container = openLoadout(m);
  const session = await openSession(container, project);
  try {
    return (await resolve(container, RuntimePlanner).plan(session, runtimes)).report();
  } finally {
    session.dispose();
  }
}

function runtime(report: PlanReport, name: string): RuntimeReport {
  const found = report.runtimes.find((part) => part.runtime === name);
  if (found === undefined) throw new Error(`no ${name} in the plan`);
  return found;
}

function codes(part: RuntimeReport): string[] {
  return part.findings.map((finding) => finding.code);
}

describe('one skill visible from two roots of one runtime (neutral fixture)', () => {
  // The same bundle as a global skill (written to the user's folders) and as a project skill.
  const pdf = { 'SKILL.md': skill('pdf'), 'reference.md': 'Tables live on page 2.\n' };
  const fixture = (): Machine => machine({ capabilities: { skills: { pdf } }, project: { skills: { pdf } } });

  it('codex: the project copy is read in place, the identical user copy is not written', async () => {
    const report = await planFor(fixture(), ['codex']);
    const codex = runtime(report, 'codex');
    expect(report.ok).toBe(true);
    expect(codex.status).toBe('ok');
    expect(codex.changes).toEqual([]);
    const skipped = codex.findings.find((finding) => finding.code === 'IDENTICAL_DUPLICATE_SKIPPED');
    expect(skipped?.message).toContain('selected <project>/.agents/skills/pdf');
    expect(skipped?.message).toContain('not written to ~/.agents/skills/pdf');
  });

  it('claude-code: identical managed duplicates plan one destination, the personal folder (it wins)', async () => {
    const report = await planFor(fixture(), ['claude-code']);
    const claude = runtime(report, 'claude-code');
    expect(claude.changes.map((change) => [change.action, change.path])).toEqual([['create', '$CLAUDE_CONFIG_DIR/skills/pdf']]);
    expect(codes(claude)).toContain('IDENTICAL_DUPLICATE_SKIPPED');
  });

  it('applying writes exactly one copy per runtime, and a second apply changes nothing', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    const first = await applier.apply({ project: m.project });
    expect(first.applied).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/pdf/reference.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.project, '.claude/skills/pdf'))).toBe(false);
    expect(fs.existsSync(path.join(m.home, '.agents/skills/pdf'))).toBe(false);
    const second = await applier.apply({ project: m.project });
    expect(second.changeCount).toBe(0);
    expect(second.upToDate).toBe(true);
  });

  it('content conflicts in every runtime fail before any change is executed', async () => {
    const m = machine({
      capabilities: { skills: { pdf } },
      project: { skills: { pdf: { ...pdf, 'SKILL.md': skill('pdf', 'A different body.\n') } } },
      home: { '.claude': { skills: { notes: { 'SKILL.md': skill('notes') } } } },
    });
    const container = openLoadout(m);
    const plan = await planFor(m);
    expect(plan.ok).toBe(false);
    for (const name of ['claude-code', 'codex']) {
      const part = runtime(plan, name);
      expect(part.status).toBe('conflict');
      expect(codes(part)).toContain('RUNTIME_CONFLICT');
    }
    // Every runtime that reads both folders sees the two bundles; the rest only report.
    expect(new Set(plan.runtimes.map((part) => part.status))).toEqual(new Set(['conflict', 'unconfirmed']));
    // Old enough that the bundles' stamps would be trusted: a refused run must still not keep them.
    await new Promise((done) => setTimeout(done, RACY_MS + 100));
    const before = snapshot(m.base);
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project });
    expect(result).toMatchObject({ ok: false, applied: false, changeCount: 0 });
    const after = snapshot(m.base);
    // Opening the database is the only write; no runtime folder, manifest, trash or stamps file changed.
    const withoutDb = (tree: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(tree).filter(([file]) => !file.includes('loadout.db') && !file.includes('runtimes.lock')));
    expect(withoutDb(after)).toEqual(withoutDb(before));
  });
});

describe('codex roots: the working folder, repository ancestors and the user root', () => {
  it('lists .agents/skills from the project up to the repository root, then the user folders', async () => {
    const report = await planFor(machine(), ['codex']);
    const roots = runtime(report, 'codex').roots.map((root) => [root.path, root.scope, root.writes]);
    expect(roots).toEqual([
      ['<project>/.agents/skills', 'project', 'project'],
      ['<project>/.codex/skills', 'project', null],
      ['<repo>/packages/.agents/skills', 'project', null],
      ['<repo>/packages/.codex/skills', 'project', null],
      ['<repo>/.agents/skills', 'project', null],
      ['<repo>/.codex/skills', 'project', null],
      ['~/.agents/skills', 'user', 'user'],
      ['$CODEX_HOME/skills', 'user', null],
      ['$CODEX_HOME/skills/.system', 'builtin', null],
      ['<codex-admin>/skills', 'managed', null],
      ['$CODEX_HOME/plugins', 'namespaced', null],
    ]);
  });

  it('a different skill of the same name at the repository root is a conflict', async () => {
    const m = machine({
      capabilities: { skills: { lint: { 'SKILL.md': skill('lint') } } },
      repo: { '.agents': { skills: { lint: { 'SKILL.md': skill('lint', 'The team lint rules.\n') } } } },
    });
    const codex = runtime(await planFor(m, ['codex']), 'codex');
    expect(codex.status).toBe('conflict');
    const conflict = codex.findings.find((finding) => finding.code === 'RUNTIME_CONFLICT');
    expect(conflict?.message).toContain('<repo>/.agents/skills/lint (not managed by Loadout');
    expect(conflict?.message).toContain('~/.agents/skills/lint (to be written by Loadout from <capabilities>/skills/lint');
    expect(codex.changes).toEqual([]);
  });

  it('an identical unmanaged copy in a repository ancestor is kept and reported; nothing is written', async () => {
    const lint = { 'SKILL.md': skill('lint') };
    const m = machine({ capabilities: { skills: { lint } }, repo: { '.agents': { skills: { lint } } } });
    const codex = runtime(await planFor(m, ['codex']), 'codex');
    expect(codex.status).toBe('ok');
    expect(codex.changes).toEqual([]);
    const kept = codex.findings.find((finding) => finding.code === 'IDENTICAL_UNMANAGED_KEPT');
    expect(kept?.message).toContain('selected <repo>/.agents/skills/lint (not managed by Loadout, sha256:');
    expect(kept?.message).toContain('not written to ~/.agents/skills/lint');
  });

  it('nested skill folders in the user root count too (codex walks below the root)', async () => {
    const m = machine({
      capabilities: { skills: { fmt: { 'SKILL.md': skill('fmt') } } },
      home: { '.agents': { skills: { team: { fmt: { 'SKILL.md': skill('fmt', 'Nested and different.\n') } } } } },
    });
    const codex = runtime(await planFor(m, ['codex'], null), 'codex');
    expect(codex.status).toBe('conflict');
    expect(codex.findings[0]?.message).toContain('~/.agents/skills/team/fmt');
  });

  it('CODEX_HOME moves the deprecated and system folders, HOME the user folder', async () => {
    const m = machine({ relocated: true });
    const roots = runtime(await planFor(m, ['codex'], null), 'codex').roots.map((root) => root.path);
    expect(roots).toEqual([
      '~/.agents/skills',
      '$CODEX_HOME/skills',
      '$CODEX_HOME/skills/.system',
      '<codex-admin>/skills',
      '$CODEX_HOME/plugins',
    ]);
  });
});

describe('claude-code: precedence and plugin namespacing', () => {
  it('personal beats project; CLAUDE_CONFIG_DIR replaces ~/.claude', async () => {
    const m = machine({ relocated: true });
    const roots = runtime(await planFor(m, ['claude-code']), 'claude-code').roots.map((root) => [root.path, root.precedence, root.writes]);
    expect(roots).toEqual([
      ['<claude-managed>/.claude/skills', 1, null],
      ['$CLAUDE_CONFIG_DIR/skills', 2, 'user'],
      ['<project>/.claude/skills', 3, 'project'],
      ['<repo>/packages/.claude/skills', 4, null],
      ['<repo>/.claude/skills', 5, null],
      ['$CLAUDE_CONFIG_DIR/plugins', 6, null],
    ]);
  });

  it('a project skill goes to the project folder, global and plugin skills to the personal folder', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } },
    });
    const container = openLoadout(m);
    installPlugin(container, m, 'charts', { skills: { 'charts.md': skill('charts') } });
    const session = await openSession(container, m.project);
    const report = (await resolve(container, RuntimePlanner).plan(session, ['claude-code'])).report();
    session.dispose();
    const changes = runtime(report, 'claude-code').changes.map((change) => [change.action, change.name, change.path, change.source]);
    expect(changes).toEqual([
      ['create', 'charts', '$CLAUDE_CONFIG_DIR/skills/charts', '<plugins>/charts/skills/charts.md'],
      ['create', 'notes', '$CLAUDE_CONFIG_DIR/skills/notes', '<capabilities>/skills/notes'],
      ['create', 'deploy', '<project>/.claude/skills/deploy', '<project>/.agents/skills/deploy'],
    ]);
  });

  it('an identical unmanaged personal copy is kept: the project copy is not written', async () => {
    const deploy = { 'SKILL.md': skill('deploy') };
    const m = machine({ project: { skills: { deploy } }, home: { '.claude': { skills: { deploy } } } });
    const claude = runtime(await planFor(m, ['claude-code']), 'claude-code');
    expect(claude.changes).toEqual([]);
    const kept = claude.findings.find((finding) => finding.code === 'IDENTICAL_UNMANAGED_KEPT')?.message;
    expect(kept).toContain('selected $CLAUDE_CONFIG_DIR/skills/deploy (not managed by Loadout');
    expect(kept).toContain('not written to <project>/.claude/skills/deploy');
  });

  it("a plugin's namespaced skill of the same name never collides and is never touched", async () => {
    const m = machine({
      capabilities: { skills: { triage: { 'SKILL.md': skill('triage') } } },
      home: {
        '.claude': {
          plugins: {
            cache: { market: { tools: { '1.0.0': { skills: { triage: { 'SKILL.md': skill('triage', 'The plugin one.\n') } } } } } },
          },
        },
      },
    });
    const pluginTree = snapshot(path.join(m.home, '.claude/plugins'));
    const container = openLoadout(m);
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project, runtimes: ['claude-code'] });
    expect(result.ok).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/triage/SKILL.md'))).toBe(true);
    expect(snapshot(path.join(m.home, '.claude/plugins'))).toEqual(pluginTree);
  });
});

describe('unmanaged, user-edited and built-in skills are never deleted or silently overwritten', () => {
  it('an unmanaged folder at the destination with other content is a conflict and stays as it is', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      home: { '.claude': { skills: { notes: { 'SKILL.md': skill('notes', 'My own notes skill.\n') } } } },
    });
    const before = snapshot(path.join(m.home, '.claude'));
    const container = openLoadout(m);
    const result = await resolve(container, RuntimeApplier).apply({ runtimes: ['claude-code'] });
    expect(result).toMatchObject({ ok: false, applied: false });
    expect(runtime(result, 'claude-code').status).toBe('conflict');
    expect(snapshot(path.join(m.home, '.claude'))).toEqual(before);
  });

  it('a file that is not a skill folder blocks the destination', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      home: { '.claude': { skills: { notes: 'a stray file\n' } } },
    });
    const claude = runtime(await planFor(m, ['claude-code'], null), 'claude-code');
    expect(claude.status).toBe('conflict');
    expect(claude.findings[0]?.message).toContain('$CLAUDE_CONFIG_DIR/skills/notes is taken');
  });

  it('a managed copy the user edited is not overwritten while wanted, and released (kept) when no longer wanted', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ runtimes: ['claude-code'] });
    const written = path.join(m.home, '.claude/skills/notes/SKILL.md');
    fs.appendFileSync(written, 'My own addition.\n');
    fs.writeFileSync(path.join(m.places.capabilitiesDir, 'skills/notes/SKILL.md'), skill('notes', 'Version two.\n'));
    expect(runtime(await applier.apply({ runtimes: ['claude-code'] }), 'claude-code').status).toBe('conflict');
    expect(fs.readFileSync(written, 'utf8')).toContain('My own addition.');

    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/notes'), { recursive: true });
    const released = await applier.apply({ runtimes: ['claude-code'] });
    const claude = runtime(released, 'claude-code');
    expect(claude.changes.map((change) => change.action)).toEqual(['release']);
    expect(codes(claude)).toContain('MANAGED_SKILL_EDITED');
    expect(fs.readFileSync(written, 'utf8')).toContain('My own addition.');
    expect((await applier.apply({ runtimes: ['claude-code'] })).changeCount).toBe(0);
    expect(fs.existsSync(written)).toBe(true);
  });

  it("codex's built-in skills are read, never written: a different one of the same name is a conflict", async () => {
    const m = machine({
      capabilities: { skills: { 'skill-creator': { 'SKILL.md': skill('skill-creator') } } },
      home: { '.codex': { skills: { '.system': { 'skill-creator': { 'SKILL.md': skill('skill-creator', 'Built in.\n') } } } } },
    });
    const before = snapshot(path.join(m.home, '.codex'));
    const codex = runtime(await planFor(m, ['codex'], null), 'codex');
    expect(codex.status).toBe('conflict');
    expect(codex.findings[0]?.message).toContain("$CODEX_HOME/skills/.system/skill-creator (the runtime's own");
    expect(snapshot(path.join(m.home, '.codex'))).toEqual(before);
  });

  it('an unmanaged skill of another name is left alone by every apply', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      home: {
        '.claude': { skills: { mine: { 'SKILL.md': skill('mine') } } },
        '.agents': { skills: { theirs: { 'SKILL.md': skill('theirs') } } },
      },
    });
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({});
    fs.rmSync(path.join(m.places.capabilitiesDir, 'skills/notes'), { recursive: true });
    const result = await applier.apply({});
    expect(result.retired.map((entry) => entry.path).sort()).toEqual(['$CLAUDE_CONFIG_DIR/skills/notes', '~/.agents/skills/notes']);
    expect(fs.readFileSync(path.join(m.home, '.claude/skills/mine/SKILL.md'), 'utf8')).toBe(skill('mine'));
    expect(fs.readFileSync(path.join(m.home, '.agents/skills/theirs/SKILL.md'), 'utf8')).toBe(skill('theirs'));
  });
});

describe('antigravity', () => {
  it('reports unconfirmed and writes nothing, even when named explicitly', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const before = snapshot(m.home);
    const container = openLoadout(m);
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project, runtimes: ['antigravity'] });
    const part = runtime(result, 'antigravity');
    expect(part.status).toBe('unconfirmed');
    expect(part.verified).toBe(false);
    expect(part.changes).toEqual([]);
    expect(codes(part)).toEqual(['RUNTIME_UNCONFIRMED']);
    expect(snapshot(m.home)).toEqual(before);
  });

  it('an unknown runtime name is refused', async () => {
    await expect(planFor(machine(), ['no-such-agent'])).rejects.toMatchObject({ code: 'RUNTIME_UNKNOWN' });
  });
});
