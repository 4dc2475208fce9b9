import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs } from '@loadout/files/testing';
import { machine, type Machine, skill } from '@loadout/runtimes/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoadout } from '../runtimes/runLoadout.js';

// Issue 34, a command line that talks back: help where there was silence, suggestions in text,
// errors once on stderr with their fix, unknown names exit 1, the project found from the working
// folder and named, completion scripts, and a doctor that finds what is wrong.

afterEach(() => removeTestdirs());

/** A machine whose shell has no `loadout` of the user's on PATH, so every check is about this test's workspace. */
function loadout(m: Machine, args: readonly string[], cwd?: string) {
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
  if (cwd === undefined) return runLoadout(m, args, env);
  return runLoadout({ ...m, base: cwd }, args, env);
}

describe('loadout talks back', () => {
  it('prints help for bare `loadout` and for a command group given no subcommand, exit 0', async () => {
    const m = machine();
    const bare = await loadout(m, []);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Usage: loadout /);
    for (const name of ['session', 'plugins', 'doctor', 'completion', 'open', 'jobs']) expect(bare.stdout).toContain(`  ${name}`);
    expect(bare.stderr).toBe('');
    const group = await loadout(m, ['plugins']);
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/^Usage: loadout plugins /);
    expect(group.stdout).toContain('install|i');
  });

  it('suggests the command meant, in text and under --json, exit 1 and nothing on stdout in text', async () => {
    const m = machine();
    const text = await loadout(m, ['sesion']);
    expect(text).toMatchObject({ code: 1, stdout: '' });
    expect(text.stderr).toBe("loadout: unknown command 'sesion'. Did you mean session?\n");
    const json = await loadout(m, ['sesion', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'UNKNOWN_COMMAND', message: "unknown command 'sesion'. Did you mean session?" },
    });
  });

  it('says each error once, on stderr, with its fix; an unknown name exits 1', async () => {
    const m = machine();
    const why = await loadout(m, ['why', 'nosuch']);
    expect(why).toMatchObject({ code: 1, stdout: '' });
    expect(why.stderr.split('\n')).toHaveLength(2);
    expect(why.stderr).toMatch(/^loadout: no runtime would see a skill named "nosuch".*\(fix: `loadout skills list`/);
    // A skill that is only switched off is still explained.
    const off = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    expect((await loadout(off, ['capability', 'set', 'skill/notes', '--disable'])).code).toBe(0);
    expect((await loadout(off, ['why', 'notes'])).code).toBe(0);
    const plugin = await loadout(m, ['plugins', 'enable', 'nosuch']);
    expect(plugin).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'loadout: no plugin named "nosuch" is installed (fix: `loadout plugins list` shows the installed plugins)\n',
    });
    const usage = await loadout(m, ['tasks', 'create', 'x', '--json']);
    expect(usage.code).toBe(2);
    expect(Object.keys(JSON.parse(usage.stdout) as object)).toEqual(['error']);
    expect(usage.stderr).toContain('(fix: `loadout tasks create --help` shows what it takes)');
  });

  it('takes the usual aliases: ls, rm, i, -v', async () => {
    const m = machine();
    expect(await loadout(m, ['plugins', 'ls'])).toMatchObject({ code: 0, stdout: 'no plugins installed\n' });
    expect((await loadout(m, ['marketplace', 'ls'])).stdout).toBe('no marketplace added\n');
    expect((await loadout(m, ['plugins', 'rm', 'nosuch'])).code).toBe(1);
    expect((await loadout(m, ['plugins', 'i', '--help'])).stdout).toMatch(/^Usage: loadout plugins install\|i /);
    expect((await loadout(m, ['-v'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('finds the project from a folder inside it and names it; --project still wins', async () => {
    const m = machine({
      capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } },
      project: { skills: { deploy: { 'SKILL.md': skill('deploy') } } },
    });
    const inside = path.join(m.project, 'src', 'deep');
    fs.mkdirSync(inside, { recursive: true });
    const session = await loadout(m, ['session'], inside);
    expect(session.code).toBe(0);
    expect(session.stdout.split('\n')[0]).toBe(
      `(project ${fs.realpathSync(m.project)}, found from the working folder; --project DIR picks another)`,
    );
    expect(session.stdout).toMatch(/skills \(2\): .*deploy/);
    const json = await loadout(m, ['session', '--json'], inside);
    expect((JSON.parse(json.stdout) as { project: string }).project).toBe(fs.realpathSync(m.project));
    const elsewhere = await loadout(m, ['session', '--project', m.repo], inside);
    expect(elsewhere.stdout).not.toContain('found from the working folder');
    // Outside any project (the temp folder above the home), no project and no note.
    expect((await loadout(m, ['session'])).stdout).toMatch(/^project: \(none\)/);
  });

  it('prints completion scripts that their shell parses', async () => {
    const m = machine();
    const bash = await loadout(m, ['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain("'plugins') words='install i update");
    expect(spawnSync('bash', ['-n'], { input: bash.stdout }).status).toBe(0);
    const zsh = await loadout(m, ['completion', 'zsh']);
    expect(zsh.stdout.startsWith('autoload -U +X bashcompinit && bashcompinit\n')).toBe(true);
    // zsh runs the bash script through bashcompinit; bash checks the part both read.
    expect(spawnSync('bash', ['-n'], { input: zsh.stdout.split('\n').slice(1).join('\n') }).status).toBe(0);
    const fish = await loadout(m, ['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c loadout -n '__fish_seen_subcommand_from tasks' -a 'run'");
    // Every fish line is one complete command with balanced quotes.
    for (const line of fish.stdout.trim().split('\n')) expect(line.replace(/\\'/g, '').split("'").length % 2, line).toBe(1);
    expect((await loadout(m, ['completion', 'tcsh'])).code).toBe(2);
  });

  it('doctor finds a runtime out of date, says its fix, exits 1; in sync after apply, exits 0', async () => {
    const m = machine({ capabilities: { skills: { notes: { 'SKILL.md': skill('notes') } } } });
    const sick = await loadout(m, ['doctor']);
    expect(sick.code).toBe(1);
    expect(sick.stdout).toMatch(/problem runtime claude-code: out of date: 1 change to write \(\w+ notes\)\n\s+fix: `loadout apply`/);
    expect(sick.stdout).toMatch(/note {4}server: no server running/);
    expect(sick.stderr).toMatch(/^loadout: \d+ problems? found/);
    const json = JSON.parse((await loadout(m, ['doctor', '--json'])).stdout) as {
      problems: number;
      checks: { check: string; status: string; fix: string | null }[];
    };
    expect(json.problems).toBeGreaterThan(0);
    expect(json.checks).toContainEqual({
      check: 'runtime claude-code',
      status: 'problem',
      message: expect.any(String),
      fix: '`loadout apply`',
    });
    expect((await loadout(m, ['apply'])).code).toBe(0);
    const well = await loadout(m, ['doctor']);
    expect(well.stdout).toContain('ok      runtime claude-code: in sync');
    expect(well.stdout.trim().split('\n').at(-1)).toBe('no problems found');
    expect(well.code).toBe(0);
  });
});
