import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';

// `plugins install SOURCE --apply`: the install and the first apply in one command, as a user of
// a one-step installer expects, with the same outcome as `plugins install` followed by `apply`.

afterEach(() => removeTestdirs());

const RUNTIMES = ['--runtime', 'claude-code', '--runtime', 'codex'];
const USER_FOLDERS = [path.join('.claude', 'skills'), path.join('.agents', 'skills')];

/** A plugin repository of three skills: one with a file beside its SKILL.md, one with a field only some clients know. */
function pluginSource(base: string): string {
  const repo = gitRepo(path.join(base, 'sources', 'writing-kit'), {
    skills: {
      drafting: { 'SKILL.md': skillMarkdown({ name: 'drafting', description: 'Drafts a first version' }), 'outline.md': '# Outline\n' },
      editing: { 'SKILL.md': skillMarkdown({ name: 'editing', description: 'Edits a draft' }) },
      proofing: { 'SKILL.md': '---\nname: proofing\ndescription: Proofreads a text\nversion: 1.2.0\n---\nRead it twice.\n' },
    },
  });
  return pathToFileURL(repo).href;
}

/** A home and a workspace of its own, and the built command line run in it. */
function machine(base: string, name: string) {
  const home = path.join(base, name);
  gitRepo(path.join(home, 'workspace', 'capabilities'), { 'README.md': 'mine\n' });
  const loadout = (...args: string[]) => runCli(home, args, { HOME: home, LOADOUT_HOME: path.join(home, 'workspace') });
  return { home, loadout };
}

/** Every file of the skills in the runtimes' user skill folders, with its bytes (not Loadout's own manifest beside them). */
function userSkillFiles(home: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const folder of USER_FOLDERS) {
    const dir = path.join(home, folder);
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || entry.name === '.loadout-manifest.json') continue;
      const file = path.join(entry.parentPath, entry.name);
      files[path.relative(home, file)] = fs.readFileSync(file, 'utf8');
    }
  }
  return files;
}

interface InstallApplyJson {
  name: string;
  summary: string;
  apply: { ok: boolean; applied: boolean; changeCount: number; runtimes: { runtime: string; status: string }[] };
}

describe('plugins install --apply', () => {
  it('installs and applies in one command what install followed by apply give in two', () => {
    const base = testdir();
    const source = pluginSource(base);
    const one = machine(base, 'one');
    const two = machine(base, 'two');

    const together = one.loadout('plugins', 'install', source, '--apply', ...RUNTIMES, '--json');
    expect(together.status, together.stderr).toBe(0);
    const result = together.json<InstallApplyJson>();
    expect(result).toMatchObject({ name: 'writing-kit', summary: '3 skills', apply: { ok: true, applied: true, changeCount: 6 } });
    expect(result.apply.runtimes.map((part) => [part.runtime, part.status])).toEqual([
      ['claude-code', 'ok'],
      ['codex', 'ok'],
    ]);

    expect(two.loadout('plugins', 'install', source).status).toBe(0);
    expect(two.loadout('apply', ...RUNTIMES).status).toBe(0);

    const written = userSkillFiles(one.home);
    expect(Object.keys(written).sort()).toEqual(
      [
        '.agents/skills/drafting/SKILL.md',
        '.agents/skills/drafting/outline.md',
        '.agents/skills/editing/SKILL.md',
        '.agents/skills/proofing/SKILL.md',
        '.claude/skills/drafting/SKILL.md',
        '.claude/skills/drafting/outline.md',
        '.claude/skills/editing/SKILL.md',
        '.claude/skills/proofing/SKILL.md',
      ].map((file) => file.split('/').join(path.sep)),
    );
    expect(written).toEqual(userSkillFiles(two.home));
    // What it applied is what a later apply plans: nothing is left to do.
    const again = one.loadout('apply', ...RUNTIMES);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing to change');
  });

  it('prints the install, then the plan it applied', () => {
    const base = testdir();
    const { loadout } = machine(base, 'one');
    const run = loadout('plugins', 'install', pluginSource(base), '--apply', ...RUNTIMES);
    expect(run.status, run.stderr).toBe(0);
    const installed = run.stdout.indexOf('installed plugin writing-kit');
    const applied = run.stdout.indexOf('applied 6 changes');
    expect(installed).toBeGreaterThanOrEqual(0);
    expect(applied).toBeGreaterThan(installed);
    expect(run.stdout).toContain('loaded: 3 skills');
  });

  it('refuses a runtime it does not know before cloning anything, and --runtime or --list that do not go with it', () => {
    const base = testdir();
    const source = pluginSource(base);
    const { home, loadout } = machine(base, 'one');
    const refusals: [string[], RegExp][] = [
      [['--apply', '--runtime', 'nope'], /unknown runtime "nope"; known: claude-code, codex/],
      [['--runtime', 'codex'], /--runtime goes with --apply/],
      [['--apply', '--list'], /--list installs nothing/],
    ];
    for (const [options, message] of refusals) {
      const run = loadout('plugins', 'install', source, ...options, '--json');
      expect(run.status, options.join(' ')).toBe(2);
      expect(run.json<{ error: { code: string; message: string } }>().error).toMatchObject({
        code: 'USAGE',
        message: expect.stringMatching(message),
      });
    }
    expect(loadout('plugins', 'list', '--json').json()).toEqual([]);
    const plugins = path.join(home, 'workspace', 'plugins');
    expect(fs.existsSync(plugins) ? fs.readdirSync(plugins) : []).toEqual([]);
    expect(userSkillFiles(home)).toEqual({});
  });
});
