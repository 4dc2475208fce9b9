import fs from 'node:fs';
import path from 'node:path';
import { contribute, createKernel, type InstalledPlugin, PluginSource, resolve, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PluginTaskReadOnlyError, TaskNameInvalidError, TaskNotFoundError } from './TaskErrors.js';
import { TaskStore } from './TaskStore.js';
import { tasksModule } from './tasksModule.js';

afterEach(removeTestdirs);

const task = (name: string, implementation = 'run.mjs') => ({
  'TASK.md': `---\nname: ${name}\ndescription: ${name} task\nimplementation: ${implementation}\n---\nbody\n`,
  [implementation]: 'console.log("hi")\n',
});

function open(home: string, plugins: InstalledPlugin[] = [], project: string | null = null) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    tasksModule,
    { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => plugins }) },
  ]);
  return container
    .resolve(SessionLoader)
    .open({ project })
    .then((session) => ({ session, store: resolve(session.container, TaskStore) }));
}

describe('TaskStore', () => {
  it('lets the owner win a dirName over a plugin, then shows the plugin task once the owner deletes theirs', async () => {
    const home = testdir({
      capabilities: { tasks: { report: task('Owner report') } },
      plugins: { acme: { tasks: { report: task('Acme report'), only: task('Acme only') } } },
    });
    const plugins = [{ name: 'acme', dir: path.join(home, 'plugins/acme'), enabled: true }];
    const first = await open(home, plugins);
    expect(first.store.getTaskByDirName('report')).toMatchObject({ name: 'Owner report', plugin: null, level: 'global' });
    expect(first.session.diagnostics.some((d) => d.code === 'SHADOWED' && d.message.includes('plugin acme'))).toBe(true);

    expect(() => first.store.deleteTask('only')).toThrow(PluginTaskReadOnlyError);
    expect(() => first.store.deleteTask('only')).toThrow(/plugin acme/);
    expect(() => first.store.updateTask('only', { name: 'x' })).toThrow(/provided by plugin acme/);
    expect(fs.existsSync(path.join(home, 'plugins/acme/tasks/only/TASK.md'))).toBe(true);

    first.store.deleteTask('report');
    expect(fs.existsSync(path.join(home, 'capabilities/tasks/report'))).toBe(false);
    const second = await open(home, plugins);
    expect(second.store.getTaskByDirName('report')).toMatchObject({ name: 'Acme report', plugin: 'acme' });
  });

  it('creates, updates and deletes an owner task, keeping unknown frontmatter fields', async () => {
    const home = testdir({ capabilities: {} });
    const { store } = await open(home);
    const created = store.createTask('nightly', {
      name: 'Nightly',
      description: 'Runs at night',
      implementation: { filename: 'run.sh', content: 'echo hi\n' },
      body: 'Instructions\n',
    });
    expect(created).toMatchObject({ dirName: 'nightly', implementation: 'run.sh', plugin: null });
    expect(fs.readFileSync(path.join(home, 'capabilities/tasks/nightly/run.sh'), 'utf8')).toBe('echo hi\n');

    const taskFile = path.join(home, 'capabilities/tasks/nightly/TASK.md');
    fs.writeFileSync(taskFile, fs.readFileSync(taskFile, 'utf8').replace('---\nname', '---\nowner-note: keep me\nname'));
    const updated = store.updateTask('nightly', { description: 'Runs every night' });
    expect(updated.description).toBe('Runs every night');
    expect(fs.readFileSync(taskFile, 'utf8')).toContain('owner-note: keep me');
    expect(fs.readFileSync(taskFile, 'utf8')).toContain('Instructions');

    store.deleteTask('nightly');
    expect(() => store.getTaskByDirName('nightly')).toThrow(TaskNotFoundError);
  });

  it('refuses to delete a task that does not exist', async () => {
    const { store } = await open(testdir({ capabilities: {} }));
    expect(() => store.deleteTask('ghost')).toThrow(TaskNotFoundError);
  });

  it.each(['', '.', '..', '../etc', 'a/b', 'a\\b', 'nul\0byte', 'x'.repeat(129)])(
    'refuses the name %j before touching the disk',
    async (name) => {
      const home = testdir({ capabilities: { tasks: { ok: task('ok') } } });
      const { store } = await open(home);
      expect(() => store.getTaskByDirName(name)).toThrow(TaskNameInvalidError);
      expect(() => store.deleteTask(name)).toThrow(TaskNameInvalidError);
      expect(() => store.createTask(name, { name: 'n', description: 'd', implementation: { filename: 'run.sh', content: '' } })).toThrow(
        TaskNameInvalidError,
      );
      expect(fs.readdirSync(path.join(home, 'capabilities/tasks'))).toEqual(['ok']);
    },
  );

  it('refuses an implementation outside the task folder', async () => {
    const home = testdir({ capabilities: { tasks: { sneaky: task('Sneaky', '../../../bin/sh') } } });
    const { session, store } = await open(home);
    expect(store.listTasks()).toHaveLength(0);
    expect(session.diagnostics.map((d) => d.code)).toContain('TASK_IMPLEMENTATION_OUTSIDE');
    expect(() => store.createTask('x', { name: 'n', description: 'd', implementation: { filename: '../x.sh', content: '' } })).toThrow(
      /plain file name/,
    );
  });

  it('writes a project-level task into the project when asked', async () => {
    const home = testdir({ capabilities: {}, project: {} });
    const { store } = await open(home, [], path.join(home, 'project'));
    const record = store.createTask(
      'local',
      { name: 'Local', description: 'Project task', implementation: { filename: 'run.mjs', content: '' } },
      'project',
    );
    expect(record.level).toBe('project');
    expect(fs.existsSync(path.join(home, 'project/.agents/tasks/local/TASK.md'))).toBe(true);
  });
});

describe('TaskStore lookups agree with the session', () => {
  it('matches folder names case-insensitively, as shadowing does', async () => {
    const home = testdir({
      capabilities: { tasks: { Report: task('Owner report') } },
      plugins: { acme: { tasks: { report: task('Acme report') } } },
    });
    const plugins = [{ name: 'acme', dir: path.join(home, 'plugins/acme'), enabled: true }];
    const { session, store } = await open(home, plugins);
    expect(session.recordsOf('task').map((t) => t.plugin)).toEqual([null]);
    expect(store.getTaskByDirName('report')).toMatchObject({ plugin: null, name: 'Owner report' });
    expect(() => store.createTask('REPORT', { name: 'n', description: 'd', implementation: { filename: 'run.sh', content: '' } })).toThrow(
      /already exists/,
    );
  });

  it('refuses a task folder or implementation that links out of its root', async () => {
    const outside = testdir({ evil: task('Evil'), 'payload.sh': 'echo pwned\n' });
    const home = testdir({
      capabilities: { tasks: { linked: { 'TASK.md': '---\nname: Linked\ndescription: d\nimplementation: run.sh\n---\n' } } },
    });
    fs.symlinkSync(path.join(outside, 'evil'), path.join(home, 'capabilities/tasks/evil'));
    fs.symlinkSync(path.join(outside, 'payload.sh'), path.join(home, 'capabilities/tasks/linked/run.sh'));
    const { session, store } = await open(home);
    expect(() => store.getTaskByDirName('evil')).toThrow(TaskNotFoundError);
    expect(() => store.getTaskByDirName('linked')).toThrow(TaskNotFoundError);
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual(['PATH_OUTSIDE_ROOT', 'PATH_OUTSIDE_ROOT']);
  });

  it('refuses TASK.md as the implementation file name', async () => {
    const { store } = await open(testdir({ capabilities: {} }));
    expect(() => store.createTask('x', { name: 'n', description: 'd', implementation: { filename: 'task.MD', content: '' } })).toThrow(
      /TASK\.md/,
    );
  });

  it('reads a declared input schema as data, taking a missing type as object and reporting one that is not', async () => {
    const withInput = (input: string) => ({
      'TASK.md': `---\nname: T\ndescription: d\nimplementation: run.sh\ninput:\n${input}\n---\n`,
      'run.sh': 'cat\n',
    });
    const home = testdir({
      capabilities: {
        tasks: {
          typed: withInput('  type: object\n  properties:\n    text: { type: string }\n  required: [text]'),
          untyped: withInput('  properties:\n    n: { type: integer }'),
          listy: withInput('  type: array'),
          plain: task('Plain', 'run.sh'),
        },
      },
    });
    const { session, store } = await open(home);
    expect(store.getTaskByDirName('typed')).toMatchObject({
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      inputSchemaError: null,
    });
    expect(store.getTaskByDirName('untyped').inputSchema).toEqual({ type: 'object', properties: { n: { type: 'integer' } } });
    expect(store.getTaskByDirName('plain')).toMatchObject({ inputSchema: null, inputSchemaError: null });
    expect(store.getTaskByDirName('listy')).toMatchObject({ inputSchema: null, inputSchemaError: expect.stringContaining('type: object') });
    expect(session.diagnostics.filter((d) => d.code === 'TASK_INPUT_SCHEMA_INVALID').map((d) => d.path)).toEqual([
      path.join(home, 'capabilities/tasks/listy/TASK.md'),
    ]);
  });

  it('reads a declared output schema and mcp-task support, reporting values it cannot use and falling back to plain calls', async () => {
    const withFields = (fields: string) => ({
      'TASK.md': `---\nname: T\ndescription: d\nimplementation: run.sh\n${fields}\n---\n`,
      'run.sh': 'cat\n',
    });
    const home = testdir({
      capabilities: {
        tasks: {
          structured: withFields('mcp-task: optional\noutput:\n  properties:\n    total: { type: number }\n  required: [total]'),
          required: withFields('mcp-task: required'),
          odd: withFields('mcp-task: sometimes\noutput: [1, 2]'),
          plain: task('Plain', 'run.sh'),
        },
      },
    });
    const { session, store } = await open(home);
    expect(store.getTaskByDirName('structured')).toMatchObject({
      mcpTask: 'optional',
      outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
      outputSchemaError: null,
    });
    expect(store.getTaskByDirName('required').mcpTask).toBe('required');
    expect(store.getTaskByDirName('plain')).toMatchObject({ mcpTask: 'never', outputSchema: null, outputSchemaError: null });
    expect(store.getTaskByDirName('odd')).toMatchObject({
      mcpTask: 'never',
      outputSchema: null,
      outputSchemaError: expect.stringContaining('"output"'),
    });
    const odd = path.join(home, 'capabilities/tasks/odd/TASK.md');
    expect(
      session.diagnostics
        .filter((d) => d.path === odd)
        .map((d) => d.code)
        .sort(),
    ).toEqual(['TASK_MCP_TASK_INVALID', 'TASK_OUTPUT_SCHEMA_INVALID']);
  });
});
