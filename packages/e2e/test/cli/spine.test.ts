import fs from 'node:fs';
import path from 'node:path';
import { git, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '@loadout/cli/testing';

afterEach(removeTestdirs);

interface SessionJson {
  project: string | null;
  roots: { dir: string; level: string; plugin: string | null; writable: boolean }[];
  skills: { id: string; name: string; level: string; plugin: string | null; path: string }[];
  tasks: { dirName: string; name: string; plugin: string | null }[];
  skillsBlock: string;
  affordanceBlock: string;
  diagnostics: { code: string; message: string }[];
}

const task = (name: string) => ({
  'TASK.md': `---\nname: ${name}\ndescription: ${name}\nimplementation: run.mjs\n---\n`,
  'run.mjs': 'process.stdout.write("ok")\n',
});

/** A workspace whose capabilities/ is its own git repository, as an owner's fork would be. */
function workspace(capabilities: Parameters<typeof gitRepo>[1] = {}) {
  const home = testdir({ plugins: {} });
  gitRepo(path.join(home, 'capabilities'), capabilities);
  return home;
}

describe('loadout session and tasks, end to end', () => {
  it('shows the shipped capabilities of a fresh clone', () => {
    const repo = path.resolve(import.meta.dirname, '../../../..');
    const home = testdir({});
    const run = runCli(home, ['session', '--json'], { LOADOUT_HOME: repo, LOADOUT_DATA_DIR: path.join(home, 'data') });
    expect(run.status).toBe(0);
    const session = run.json<SessionJson & Record<string, { id: string }[]>>();
    for (const kind of ['skills', 'affordances', 'notifications', 'servers', 'tasks']) expect(session[kind]!.length).toBeGreaterThan(0);
    expect(session.skillsBlock).toContain('writing-commit-messages');
    expect(session.diagnostics).toEqual([]);
  });

  it('prints its version, bare or as one JSON document, without opening the workspace', () => {
    const home = testdir({});
    const { version } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../cli/package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v', '-V']) {
      const run = runCli(home, [flag], { LOADOUT_DATA_DIR: path.join(home, 'data') });
      expect(run).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
    }
    expect(runCli(home, ['--version', '--json']).json()).toEqual({ version });
    expect(fs.existsSync(path.join(home, 'data'))).toBe(false);
    expect(runCli(home, ['--help']).stdout).toContain('-v, --version');
  });

  it('puts a project level first and its documents over the owner’s', () => {
    const home = workspace({ skills: { pdf: { 'SKILL.md': skillMarkdown({ name: 'pdf', description: 'global pdf' }) } } });
    const project = testdir({ '.agents': { skills: { pdf: { 'SKILL.md': skillMarkdown({ name: 'pdf', description: 'project pdf' }) } } } });
    const session = runCli(home, ['session', '--project', project, '--json']).json<SessionJson>();
    expect(session.roots.map((r) => r.level)).toEqual(['project', 'global']);
    expect(session.skills).toEqual([expect.objectContaining({ id: 'pdf', level: 'project', description: 'project pdf' })]);
    expect(session.diagnostics).toEqual([expect.objectContaining({ code: 'SHADOWED' })]);
  });

  it('lets the owner create, update and delete a task; refuses a missing one; keeps the fork clean of anything else', () => {
    const home = workspace({ tasks: { keep: task('Keep') } });
    const impl = path.join(testdir({ 'hello.mjs': 'console.log("hello")\n' }), 'hello.mjs');
    const created = runCli(home, [
      'tasks',
      'create',
      'hello',
      '--name',
      'Hello',
      '--description',
      'Says hello',
      '--implementation',
      impl,
      '--json',
    ]);
    expect(created.status).toBe(0);
    expect(created.json()).toMatchObject({ dirName: 'hello', plugin: null, implementation: 'hello.mjs' });

    const updated = runCli(home, ['tasks', 'update', 'hello', '--description', 'Says hello twice', '--json']);
    expect(updated.json()).toMatchObject({ description: 'Says hello twice' });
    expect(runCli(home, ['tasks', 'show', 'hello', '--json']).json()).toMatchObject({ name: 'Hello', description: 'Says hello twice' });

    expect(runCli(home, ['tasks', 'delete', 'hello', '--json']).status).toBe(0);
    const again = runCli(home, ['tasks', 'delete', 'hello', '--json']);
    expect(again.status).toBe(1);
    expect(again.json()).toEqual({ error: { code: 'TASK_NOT_FOUND', message: expect.stringContaining('hello') } });
    expect(git(path.join(home, 'capabilities'), 'status', '--porcelain')).toBe('');
  });

  it.each([
    ['..', 'TASK_NAME_INVALID'],
    ['.', 'TASK_NAME_INVALID'],
    ['a/b', 'TASK_NAME_INVALID'],
    ['a\\b', 'TASK_NAME_INVALID'],
    ['x'.repeat(300), 'TASK_NAME_INVALID'],
  ])('refuses the task name %j with a clear error', (name, code) => {
    const home = workspace({ tasks: { keep: task('Keep') } });
    for (const command of [
      ['show', name],
      ['delete', name],
      ['update', name, '--name', 'x'],
    ]) {
      const run = runCli(home, ['tasks', ...command, '--json']);
      expect(run.status).toBe(1);
      expect(run.json<{ error: { code: string } }>().error.code).toBe(code);
      expect(run.stderr).toMatch(/^loadout: invalid task name/);
    }
    expect(fs.readdirSync(path.join(home, 'capabilities/tasks'))).toEqual(['keep']);
  });

  it('refuses an empty task name', () => {
    const run = runCli(workspace(), ['tasks', 'show', '', '--json']);
    expect(run.status).toBe(1);
    expect(run.json<{ error: { code: string } }>().error.code).toBe('TASK_NAME_INVALID');
  });

  it('loads the good documents beside hostile ones and runs nothing', () => {
    const outside = testdir({ 'secret.md': skillMarkdown({ name: 'secret', description: 'must not be read' }) });
    const marker = path.join(outside, 'ran');
    const home = workspace({
      skills: {
        good: { 'SKILL.md': skillMarkdown({ name: 'good', description: 'fine' }) },
        code: { 'SKILL.md': `---js\n{ name: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') }\n---\n` },
        bomb: {
          'SKILL.md': `---\na: &a [x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d]\n---\n`,
        },
        broken: { 'SKILL.md': '---\nname: [unclosed\n---\n' },
      },
    });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(home, 'capabilities/skills/leak.md'));
    fs.symlinkSync(outside, path.join(home, 'capabilities/skills/leakdir'));
    const run = runCli(home, ['session', '--json']);
    expect(run.status).toBe(0);
    const session = run.json<SessionJson>();
    expect(session.skills.map((s) => s.id)).toEqual(['good']);
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual([
      'FRONTMATTER_ENGINE_REFUSED',
      'FRONTMATTER_MALFORMED',
      'FRONTMATTER_TOO_COMPLEX',
      'PATH_OUTSIDE_ROOT',
      'PATH_OUTSIDE_ROOT',
    ]);
    expect(run.stdout).not.toContain('must not be read');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('prints a line per registered kind without --json', () => {
    const home = workspace({
      tasks: { keep: task('Keep') },
      skills: { good: { 'SKILL.md': skillMarkdown({ name: 'good', description: 'A good skill' }) } },
    });
    const run = runCli(home, ['session']);
    expect(run.status).toBe(0);
    const kindLines = run.stdout.split('\n').filter((line) => /^[a-z]+ \(\d+\):/.test(line));
    expect(kindLines).toEqual([
      'skills (1): good',
      'affordances (0): ',
      'notifications (0): ',
      'servers (0): ',
      'tasks (1): keep',
      'agents (0): ',
      'commands (0): ',
      'hooks (0): ',
    ]);
  });

  it('prints exactly one JSON document with --json, and a usage error exits 2', () => {
    const home = workspace({ tasks: { keep: task('Keep') } });
    for (const args of [['session'], ['tasks', 'list'], ['tasks', 'show', 'keep'], ['tasks', 'show', 'missing']]) {
      const run = runCli(home, [...args, '--json']);
      // JSON.parse accepts exactly one document: anything printed before or after would break it.
      expect(() => JSON.parse(run.stdout)).not.toThrow();
      expect(run.stdout.trim()).toMatch(/^[[{][\s\S]*[\]}]$/);
    }
    const usage = runCli(home, ['tasks', 'create', 'x', '--json']);
    expect(usage.status).toBe(2);
    expect(usage.json<{ error: { code: string } }>().error.code).toBe('USAGE');
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });
});
