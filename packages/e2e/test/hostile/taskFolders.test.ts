import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, workspaceTree } from '../server/support.js';
import { loadout, task, unreadableTo, workspace } from './coreSupport.js';

/**
 * Hostile task folders and task requests through the command line and the HTTP API: links in a
 * task folder, hidden and multi-line names, an unreadable task, a client sending back what it
 * read. Each case names the issue-11 item it covers.
 */

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

const errorOf = (run: { json<T>(): T }) => run.json<{ error: { code: string; message: string } }>().error;

describe('hostile task folders, end to end', () => {
  it('11.5 tasks update never writes through a link in the task folder to a file outside the root', () => {
    const outside = testdir({ 'victim.sh': 'precious\n' });
    const ws = workspace({ capabilities: { tasks: { t: task('T') } } });
    const folder = path.join(ws.home, 'capabilities/tasks/t');
    fs.symlinkSync(path.join(outside, 'victim.sh'), path.join(folder, 'evil.sh'));
    const before = fs.readFileSync(path.join(folder, 'TASK.md'), 'utf8');
    const replacement = path.join(testdir({ 'evil.sh': 'echo pwned\n' }), 'evil.sh');

    const run = loadout(ws.home, ['tasks', 'update', 't', '--implementation', replacement, '--json']);
    expect(run.status).toBe(1);
    expect(errorOf(run)).toMatchObject({ code: 'PATH_IS_LINK', message: expect.stringMatching(/evil\.sh is a link/) });
    expect(fs.readFileSync(path.join(outside, 'victim.sh'), 'utf8')).toBe('precious\n');
    expect(fs.readFileSync(path.join(folder, 'TASK.md'), 'utf8')).toBe(before);
  });

  it('11.5 PUT /api/tasks/:dirName is refused with 409 and changes neither file', async () => {
    const outside = testdir({ 'victim.sh': 'precious\n' });
    server = await TestServer.start();
    const folder = path.join(server.home, 'capabilities/tasks/echo');
    fs.symlinkSync(path.join(outside, 'victim.sh'), path.join(folder, 'evil.sh'));
    const before = fs.readFileSync(path.join(folder, 'TASK.md'), 'utf8');

    const answer = await server.request('PUT', '/api/tasks/echo', {
      body: { implementation: { filename: 'evil.sh', content: 'echo pwned\n' } },
    });
    expect(answer).toMatchObject({ status: 409, body: { error: { code: 'PATH_IS_LINK' } } });
    expect(fs.readFileSync(path.join(outside, 'victim.sh'), 'utf8')).toBe('precious\n');
    expect(fs.readFileSync(path.join(folder, 'TASK.md'), 'utf8')).toBe(before);
  });

  it('11.9 a dot-named task is neither listed nor switchable nor runnable, and cannot be created', async () => {
    const ws = workspace({
      capabilities: { tasks: { '.secret': task('Secret', 'touch "$LOADOUT_PROJECT/ran"\n'), visible: task('Visible') } },
    });
    const listed = loadout(ws.home, ['tasks', 'list', '--json']).json<{ dirName: string }[]>();
    expect(listed.map((t) => t.dirName)).toEqual(['visible']);

    const run = loadout(ws.home, ['tasks', 'run', '.secret', '--project', ws.project, '--json']);
    expect(run.status).toBe(1);
    expect(errorOf(run).code).toBe('TASK_NAME_INVALID');
    expect(fs.existsSync(path.join(ws.project, 'ran'))).toBe(false);
    expect(errorOf(loadout(ws.home, ['capability', 'set', 'task/.secret', '--disable', '--json'])).code).toBe('STATE_CAPABILITY_UNKNOWN');
    const impl = path.join(testdir({ 'run.sh': 'echo\n' }), 'run.sh');
    const created = loadout(ws.home, [
      'tasks',
      'create',
      '.hidden',
      '--name',
      'H',
      '--description',
      'd',
      '--implementation',
      impl,
      '--json',
    ]);
    expect(errorOf(created).code).toBe('TASK_NAME_INVALID');

    server = await TestServer.start({ tree: workspaceTree({ '.secret': task('Secret') }) });
    expect(await server.request('POST', '/api/tasks/.secret/runs', { body: {} })).toMatchObject({
      status: 400,
      body: { error: { code: 'TASK_NAME_INVALID' } },
    });
  });

  it('11.26 a line break in a task folder or implementation name is refused by the CLI and the API', async () => {
    const ws = workspace({ capabilities: { tasks: {} } });
    const impl = path.join(testdir({ 'run.sh': 'echo\n' }), 'run.sh');
    const run = loadout(ws.home, [
      'tasks',
      'create',
      'two\nlines',
      '--name',
      'N',
      '--description',
      'd',
      '--implementation',
      impl,
      '--json',
    ]);
    expect(run.status).toBe(1);
    expect(errorOf(run).code).toBe('TASK_NAME_INVALID');
    expect(fs.readdirSync(path.join(ws.home, 'capabilities/tasks'))).toEqual([]);

    server = await TestServer.start();
    const body = (dirName: string, filename: string) => ({
      dirName,
      name: 'N',
      description: 'd',
      implementation: { filename, content: 'echo\n' },
    });
    expect(await server.request('POST', '/api/tasks', { body: body('two\nlines', 'run.sh') })).toMatchObject({
      status: 400,
      body: { error: { code: 'TASK_NAME_INVALID' } },
    });
    expect(await server.request('POST', '/api/tasks', { body: body('ok', 'run\n.sh') })).toMatchObject({
      status: 400,
      body: { error: { code: 'TASK_INVALID' } },
    });
    expect(fs.existsSync(path.join(server.home, 'capabilities/tasks/ok'))).toBe(false);
  });

  it('S9 a task another user cannot read is TASK_UNREADABLE with its cause, not "not found"', () => {
    const ws = workspace({ capabilities: { tasks: { t: task('T') } } });
    expect(loadout(ws.home, ['tasks', 'list', '--json']).status).toBe(0);
    const locked = unreadableTo(ws.home, path.join(ws.home, 'capabilities/tasks/t/TASK.md'));
    try {
      const run = loadout(ws.home, ['tasks', 'show', 't', '--json'], { user: locked.user });
      expect(run.status).toBe(1);
      expect(errorOf(run)).toMatchObject({ code: 'TASK_UNREADABLE', message: expect.stringMatching(/task "t" cannot be read: .*EACCES/) });
    } finally {
      locked.restore();
    }
  });
});

describe('a task read and sent back over HTTP', () => {
  it('S10 GET /api/tasks/:dirName answers what PUT takes, and PUT of the unchanged body writes nothing', async () => {
    server = await TestServer.start();
    const taskFile = path.join(server.home, 'capabilities/tasks/echo/TASK.md');
    const bytes = fs.readFileSync(taskFile, 'utf8');
    const mtime = fs.statSync(taskFile).mtimeMs;

    const read = await server.request('GET', '/api/tasks/echo');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      dirName: 'echo',
      implementation: { filename: 'run.mjs', content: expect.any(String) },
      body: expect.any(String),
    });

    const put = await server.request('PUT', '/api/tasks/echo', { body: read.body });
    expect(put).toMatchObject({ status: 200, body: read.body as Record<string, unknown> });
    expect(fs.readFileSync(taskFile, 'utf8')).toBe(bytes);
    expect(fs.statSync(taskFile).mtimeMs).toBe(mtime);

    const renamed = await server.request('PUT', '/api/tasks/echo', { body: { ...(read.body as object), dirName: 'other' } });
    expect(renamed).toMatchObject({
      status: 400,
      body: { error: { code: 'TASK_FIELD_READ_ONLY', message: expect.stringMatching(/^dirName/) } },
    });

    const unknown = await server.request('PUT', '/api/tasks/echo', { body: { ...(read.body as object), colour: 'red' } });
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: 'TASK_INVALID', message: 'body: unknown field "colour"' } } });

    const edited = await server.request('PUT', '/api/tasks/echo', { body: { ...(read.body as object), description: 'Echoes, edited' } });
    expect(edited).toMatchObject({
      status: 200,
      body: { description: 'Echoes, edited', implementation: (read.body as { implementation: unknown }).implementation },
    });
  });
});
