import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { machine, type Machine, skill, snapshot } from '@loadout/runtimes/testing';
import type { CliRun } from '../spawnLoadout.js';
import { runLoadout } from './runLoadout.js';

const CLI = CLI_ENTRY;

/** Runs the built `loadout` the way a user would, with HOME and the runtimes' folders in the temp folder. */
function loadout(m: Machine, ...args: string[]): Promise<CliRun> {
  return runLoadout(m, args);
}

interface ApplyJson {
  ok: boolean;
  upToDate: boolean;
  changeCount: number;
  runtimes: {
    runtime: string;
    status: string;
    changes: { action: string; path: string }[];
    findings: { code: string; message: string }[];
  }[];
  retired: { id: string; name: string; runtime: string; path: string }[];
}

/** Nothing a command prints may name the home folder or the temp folder by absolute path. */
function expectRedacted(m: Machine, run: CliRun): void {
  for (const text of [run.stdout, run.stderr]) {
    expect(text).not.toContain(m.home);
    expect(text).not.toContain(m.base);
  }
}

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
});

afterEach(() => removeTestdirs());

describe('loadout apply (end to end)', () => {
  const secretBody = 'token=ghp_abcdefghijklmnopqrstuvwxyzABCDEF123456 keep this private\n';

  it('dry-run and check leave the tree byte-identical; apply writes; check passes after', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes', secretBody) } } },
      project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } },
    });
    // A first run creates the database; after that the data folder is part of the comparison too.
    expect((await loadout(m, 'apply', '--dry-run', '--project', m.project)).code).toBe(0);
    const before = snapshot(m.base);
    const dry = await loadout(m, 'apply', '--dry-run', '--project', m.project, '--json');
    const check = await loadout(m, 'apply', '--check', '--project', m.project, '--json');
    const human = await loadout(m, 'apply', '--check', '--project', m.project);
    const without = (tree: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(tree).filter(([file]) => !/loadout\.db-(wal|shm)$/.test(file)));
    expect(without(snapshot(m.base))).toEqual(without(before));
    expect(dry.code).toBe(0);
    expect(check.code).toBe(1);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('check: 3 changes pending');
    const plan = JSON.parse(dry.stdout) as ApplyJson;
    expect(plan.changeCount).toBe(3);
    expect(Object.fromEntries(plan.runtimes.map((part) => [part.runtime, part.status]))).toEqual({
      'claude-code': 'ok',
      codex: 'ok',
      'copilot-vscode': 'ok',
      'copilot-cli': 'ok',
      opencode: 'ok',
      goose: 'ok',
      cursor: 'unconfirmed',
      windsurf: 'unconfirmed',
      amp: 'unconfirmed',
      antigravity: 'unconfirmed',
      'antigravity-cli': 'unconfirmed',
      'gemini-cli': 'ok',
      'qwen-code': 'unconfirmed',
      crush: 'unconfirmed',
      zed: 'unconfirmed',
      'kilo-code': 'unconfirmed',
      auggie: 'unconfirmed',
      cline: 'unconfirmed',
      'qoder-cli': 'unconfirmed',
    });
    for (const run of [dry, check, human]) {
      expectRedacted(m, run);
      expect(run.stdout).not.toContain('ghp_');
      expect(run.stdout).not.toContain('keep this private');
    }

    const applied = await loadout(m, 'apply', '--project', m.project, '--json');
    expect(applied.code).toBe(0);
    expectRedacted(m, applied);
    expect(fs.readFileSync(path.join(m.home, '.claude/skills/notes/SKILL.md'), 'utf8')).toContain(secretBody);
    expect(fs.existsSync(path.join(m.project, '.claude/skills/deploy/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.home, '.agents/skills/notes/SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.join(m.project, '.agents/skills/deploy/SKILL.md'))).toBe(true);
    const after = await loadout(m, 'apply', '--check', '--project', m.project, '--json');
    expect(after.code).toBe(0);
    expect((JSON.parse(after.stdout) as ApplyJson).upToDate).toBe(true);
  });

  it('disable, apply, restore: the skill leaves the runtime into the trash and comes back', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') }, pdf: { 'SKILL.md': skill('pdf') } } } });
    expect((await loadout(m, 'apply', '--runtime', 'claude-code')).code).toBe(0);
    const written = snapshot(path.join(m.home, '.claude/skills/pdf'));
    const disabled = await loadout(m, 'capability', 'set', 'skill/pdf', '--disable', '--json');
    expect(disabled.code, disabled.stderr).toBe(0);

    const retired = await loadout(m, 'apply', '--runtime', 'claude-code', '--json');
    expect(retired.code).toBe(0);
    const result = JSON.parse(retired.stdout) as ApplyJson;
    expect(result.retired.map((entry) => [entry.name, entry.path])).toEqual([['pdf', '$CLAUDE_CONFIG_DIR/skills/pdf']]);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/pdf'))).toBe(false);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes'))).toBe(true);

    const listed = await loadout(m, 'apply', 'restore', '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { retired: { id: string }[] }).retired.map((entry) => entry.id)).toEqual([result.retired[0]?.id]);
    const restored = await loadout(m, 'apply', 'restore', result.retired[0]?.id ?? '');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('restored pdf (claude-code) to $CLAUDE_CONFIG_DIR/skills/pdf');
    expect(snapshot(path.join(m.home, '.claude/skills/pdf'))).toEqual(written);
    expectRedacted(m, restored);
  });

  it('a conflict exits 1, names redacted paths, writes nothing for that runtime and applies the others', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      home: { '.agents': { skills: { notes: { 'SKILL.md': skill('notes', 'Hand-made.\n') } } } },
    });
    expect((await loadout(m, 'apply', '--dry-run')).code).toBe(0);
    const agents = snapshot(path.join(m.home, '.agents'));
    const run = await loadout(m, 'apply', '--runtime', 'claude-code', '--runtime', 'codex', '--json');
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as ApplyJson;
    expect(result.ok).toBe(false);
    const codex = result.runtimes.find((part) => part.runtime === 'codex');
    expect(codex?.status).toBe('conflict');
    expect(codex?.findings.find((finding) => finding.code === 'RUNTIME_CONFLICT')?.message).toContain(
      '~/.agents/skills/notes (not managed by Loadout',
    );
    expect(result.runtimes.find((part) => part.runtime === 'claude-code')?.status).toBe('ok');
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([expect.stringContaining('not applied: codex (conflict)')]);
    expectRedacted(m, run);
    expect(snapshot(path.join(m.home, '.agents'))).toEqual(agents);
    expect(fs.existsSync(path.join(m.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
  });

  it('bad usage exits 2: an unknown runtime, --dry-run with --check', async () => {
    const m = machine();
    const unknown = await loadout(m, 'apply', '--runtime', 'no-such-agent', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toEqual({
      error: { code: 'USAGE', message: expect.stringContaining('claude-code, codex, copilot-vscode') },
    });
    const both = await loadout(m, 'apply', '--dry-run', '--check', '--json');
    expect(both.code).toBe(2);
    expect((JSON.parse(both.stdout) as { error: { code: string } }).error.code).toBe('USAGE');
  });
});
