import fs from 'node:fs';
import path from 'node:path';
import { contribute, createKernel, PluginSource, resolve, resolvePlaces, SessionLoader } from '@loadout/kernel';
import { WriteRefusedError } from '@loadout/files';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskStore, tasksModule } from '../../src/index.js';
import { TaskNameInvalidError, TaskNotFoundError } from '../../src/TaskErrors.js';

/**
 * Hostile task folders and requests against the task store: links that lead a write elsewhere,
 * names a scan hides or a line break splits, a client sending back what it read. Each case names
 * the issue-11 item it covers.
 */

afterEach(removeTestdirs);

const taskMd = (name: string, implementation = 'run.sh', extra = '') =>
  `---\nname: ${name}\ndescription: ${name} task\nimplementation: ${JSON.stringify(implementation)}\n${extra}---\nSteps.\n`;
const task = (name: string): TreeDescription => ({ 'TASK.md': taskMd(name), 'run.sh': 'echo hi\n' });

async function open(home: string, project: string | null = null) {
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    tasksModule,
    { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
  ]);
  const session = await container.resolve(SessionLoader).open({ project });
  return { session, store: resolve(session.container, TaskStore) };
}

/** Every file under `dir` with its bytes, links as `-> target`. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string): void => {
    for (const name of fs.readdirSync(folder)) {
      const full = path.join(folder, name);
      const stats = fs.lstatSync(full);
      if (stats.isSymbolicLink()) files[path.relative(dir, full)] = `-> ${fs.readlinkSync(full)}`;
      else if (stats.isDirectory()) walk(full);
      else files[path.relative(dir, full)] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return files;
}

describe('hostile task writes', () => {
  it('11.5 an update never writes through a link in the task folder, and changes nothing when it refuses', async () => {
    const outside = testdir({ 'payload.sh': 'outside\n' });
    const home = testdir({ capabilities: { tasks: { t: task('T'), other: task('Other') } } });
    const tasks = path.join(home, 'capabilities/tasks');
    fs.symlinkSync(path.join(outside, 'payload.sh'), path.join(tasks, 't/evil.sh'));
    const before = { home: snapshot(home), outside: snapshot(outside) };
    const { store } = await open(home);

    expect(() => store.updateTask('t', { implementation: { filename: 'evil.sh', content: 'echo pwned\n' } })).toThrow(WriteRefusedError);
    expect(() => store.updateTask('t', { implementation: { filename: 'evil.sh', content: 'echo pwned\n' } })).toThrow(/evil\.sh is a link/);
    expect(snapshot(outside)).toEqual(before.outside);
    expect(snapshot(home)).toEqual(before.home);
  });

  it('11.5 an update never writes through a TASK.md or a task folder that is a link to another task', async () => {
    const home = testdir({ capabilities: { tasks: { other: task('Other'), shared: { 'run.sh': 'echo shared\n' } } } });
    const tasks = path.join(home, 'capabilities/tasks');
    fs.symlinkSync('../other/TASK.md', path.join(tasks, 'shared/TASK.md'));
    fs.symlinkSync('other', path.join(tasks, 'alias'));
    const before = snapshot(home);
    const { store } = await open(home);

    expect(() => store.updateTask('shared', { description: 'changed' })).toThrow(/TASK\.md is a link/);
    expect(() => store.updateTask('alias', { description: 'changed' })).toThrow(/tasks\/alias is a link/);
    expect(snapshot(home)).toEqual(before);
  });

  it('11.5 a task is never created through a tasks folder that is a link', async () => {
    const elsewhere = testdir({});
    const home = testdir({ capabilities: {} });
    fs.symlinkSync(elsewhere, path.join(home, 'capabilities/tasks'));
    const { store } = await open(home);
    expect(() => store.createTask('new', { name: 'New', description: 'd', implementation: { filename: 'run.sh', content: '' } })).toThrow(
      expect.objectContaining({ code: 'PATH_IS_LINK' }),
    );
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

describe('hostile task names', () => {
  it('11.9 a dot-named task is neither listed nor run: one rule for listing, lookup and create', async () => {
    const home = testdir({ capabilities: { tasks: { '.secret': task('Secret'), visible: task('Visible') } } });
    const { store } = await open(home);
    expect(store.listTasks().map((t) => t.dirName)).toEqual(['visible']);
    expect(() => store.getTaskByDirName('.secret')).toThrow(TaskNameInvalidError);
    expect(() => store.getTaskByDirName('.secret')).toThrow(/may not start with "\."/);
    expect(() => store.createTask('.hidden', { name: 'H', description: 'd', implementation: { filename: 'run.sh', content: '' } })).toThrow(
      TaskNameInvalidError,
    );
    expect(fs.existsSync(path.join(home, 'capabilities/tasks/.hidden'))).toBe(false);
  });

  it('11.26 a line break in a task folder or implementation name is refused on create', async () => {
    const home = testdir({ capabilities: {} });
    const { store } = await open(home);
    const implementation = { filename: 'run.sh', content: '' };
    for (const name of ['two\nlines', 'carriage\rreturn', 'tab\there', 'sep\u2028arator']) {
      expect(() => store.createTask(name, { name: 'N', description: 'd', implementation }), JSON.stringify(name)).toThrow(
        TaskNameInvalidError,
      );
    }
    expect(() => store.createTask('ok', { name: 'N', description: 'd', implementation: { filename: 'run\n.sh', content: '' } })).toThrow(
      /plain file name/,
    );
    expect(fs.readdirSync(path.join(home, 'capabilities')).filter((name) => name !== 'tasks')).toEqual([]);
    expect(fs.existsSync(path.join(home, 'capabilities/tasks')) ? fs.readdirSync(path.join(home, 'capabilities/tasks')) : []).toEqual([]);
  });

  it('11.26 a task folder or implementation name with a line break on disk is a diagnostic, not a task', async () => {
    const home = testdir({
      capabilities: {
        tasks: {
          'bad\nname': task('Bad'),
          'bad-impl': { 'TASK.md': taskMd('Bad impl', 'run\n.sh'), 'run\n.sh': 'echo x\n' },
          good: task('Good'),
        },
      },
    });
    const { session, store } = await open(home);
    expect(store.listTasks().map((t) => t.dirName)).toEqual(['good']);
    expect(session.diagnostics.map((d) => d.code).sort()).toEqual(['TASK_IMPLEMENTATION_INVALID', 'TASK_NAME_INVALID']);
    expect(session.diagnostics.every((d) => !d.message.includes('\n'))).toBe(true);
    expect(() => store.getTaskByDirName('bad\nname')).toThrow(TaskNameInvalidError);
    expect(() => store.getTaskByDirName('bad-impl')).toThrow(TaskNotFoundError);
    expect(() => store.getTaskByDirName('bad-impl')).toThrow(/line break/);
  });
});

describe('a task read and sent back', () => {
  it('S10 the whole task reads as it is written back, and writing it back unchanged writes nothing', async () => {
    // Hand-written frontmatter (an unknown field, its own quoting and order) that a rewrite would reformat.
    const handWritten = `---\ndescription: 'Nightly report'\nname: Nightly\nowner-note: keep me\nimplementation: run.mjs\ntimeout: 30\n---\nRun it at night.\n`;
    const home = testdir({ capabilities: { tasks: { nightly: { 'TASK.md': handWritten, 'run.mjs': 'console.log(1)\n' } } } });
    const taskFile = path.join(home, 'capabilities/tasks/nightly/TASK.md');
    const { store } = await open(home);
    const document = store.getTaskDocument('nightly');
    expect(document).toMatchObject({
      dirName: 'nightly',
      name: 'Nightly',
      description: 'Nightly report',
      body: 'Run it at night.\n',
      implementation: { filename: 'run.mjs', content: 'console.log(1)\n' },
      timeoutSeconds: 30,
      retries: 0,
    });
    const mtime = fs.statSync(taskFile).mtimeMs;
    const { name, description, body, implementation, timeoutSeconds, retries } = document;
    expect(store.updateTask('nightly', { name, description, body, implementation, timeoutSeconds, retries })).toMatchObject({
      dirName: 'nightly',
    });
    expect(fs.readFileSync(taskFile, 'utf8')).toBe(handWritten);
    expect(fs.statSync(taskFile).mtimeMs).toBe(mtime);

    store.updateTask('nightly', { ...document, description: 'Every night', timeoutSeconds: null });
    const after = store.getTaskDocument('nightly');
    expect(after).toMatchObject({ description: 'Every night', timeoutSeconds: null, body: 'Run it at night.\n' });
    expect(fs.readFileSync(taskFile, 'utf8')).toContain('owner-note: keep me');
  });
});
