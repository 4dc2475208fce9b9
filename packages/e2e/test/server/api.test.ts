import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { startServer } from '@loadout/server';
import { removeTestdirs, testdir, writeTree } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { JobQueue } from '@loadout/jobs';
import { taskTree } from '@loadout/jobs/testing';
import { pluginTree, readEventStream, sendRequest, TestServer, TOKEN, workspaceTree } from './support.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

async function start(options: Parameters<typeof TestServer.start>[0] = {}): Promise<TestServer> {
  const tree = options.tree ?? { ...workspaceTree(), plugins: { acme: pluginTree('acme') } };
  server = await TestServer.start({ plugins: ['acme'], ...options, tree });
  return server;
}

const newTask = (dirName: string) => ({
  dirName,
  name: `Task ${dirName}`,
  description: 'made over HTTP',
  implementation: { filename: 'run.mjs', content: "process.stdout.write('made')\n" },
});

describe('the session and task routes', () => {
  it('answers the session shaped as `loadout session --json`, without the token', async () => {
    const s = await start();
    const answer = await s.request('GET', '/api/session', { token: null });
    expect(answer.status).toBe(200);
    const session = answer.body as Record<string, unknown>;
    expect(Object.keys(session)).toEqual(
      expect.arrayContaining(['project', 'roots', 'skills', 'tasks', 'servers', 'skillsBlock', 'diagnostics']),
    );
    expect((session.tasks as { dirName: string; plugin: string | null }[]).map((t) => [t.dirName, t.plugin])).toEqual(
      expect.arrayContaining([
        ['echo', null],
        ['acme-task', 'acme'],
      ]),
    );
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('serializes the session once per change: a strong ETag, 304 while nothing changed, only the kinds asked for', async () => {
    const s = await start();
    const first = await s.request('GET', '/api/session', { token: null });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    const again = await s.request('GET', '/api/session', { token: null });
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(etag);
    const revalidated = await s.request('GET', '/api/session', { token: null, headers: { 'if-none-match': `"other", ${etag}` } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
    expect(revalidated.headers.etag).toBe(etag);

    // An edit under a root, then a switch in the database: each is a new body and a new tag.
    writeTree(path.join(s.places.capabilitiesDir, 'skills'), {
      'owner-skill': { 'SKILL.md': '---\nname: owner-skill\ndescription: Changed.\n---\nBody.\n' },
    });
    await new Promise((done) => setTimeout(done, 50));
    const edited = await s.request('GET', '/api/session', { token: null, headers: { 'if-none-match': etag } });
    expect(edited.status).toBe(200);
    expect(
      (edited.body as { skills: { name: string; description: string }[] }).skills.find((skill) => skill.name === 'owner-skill')
        ?.description,
    ).toBe('Changed.');
    expect(edited.headers.etag).not.toBe(etag);
    expect(await s.request('POST', '/api/plugins/acme/disable')).toMatchObject({ status: 200 });
    const switched = await s.request('GET', '/api/session', { token: null, headers: { 'if-none-match': edited.headers.etag as string } });
    expect(switched.status).toBe(200);
    expect((switched.body as { tasks: { plugin: string | null }[] }).tasks.some((task) => task.plugin === 'acme')).toBe(false);

    // Kept as UTF-8 bytes and sent as they are: JSON by type, text beyond ASCII intact, and the tag a hash of those bytes.
    writeTree(path.join(s.places.capabilitiesDir, 'skills'), {
      'owner-skill': { 'SKILL.md': '---\nname: owner-skill\ndescription: Zoë’s résumé 🚀\n---\nBody.\n' },
    });
    await new Promise((done) => setTimeout(done, 50));
    const accented = await s.request('GET', '/api/session', { token: null });
    expect(accented.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(
      (accented.body as { skills: { name: string; description: string }[] }).skills.find((skill) => skill.name === 'owner-skill')
        ?.description,
    ).toBe('Zoë’s résumé 🚀');
    expect(Number(accented.headers['content-length'])).toBe(Buffer.byteLength(accented.text));
    expect(accented.headers.etag).toBe(`"${createHash('sha256').update(accented.text).digest('base64url').slice(0, 32)}"`);

    const some = await s.request('GET', '/api/session?kinds=tasks,skill', { token: null });
    expect(Object.keys(some.body as object)).toEqual(['project', 'roots', 'skills', 'tasks', 'diagnostics']);
    expect(some.headers.etag).not.toBe(switched.headers.etag);
    expect(await s.request('GET', '/api/session?kinds=spells', { token: null })).toMatchObject({
      status: 400,
      body: { error: { code: 'KIND_UNKNOWN' } },
    });
  });

  it('opens the session for a project with the token, and refuses a project that does not exist', async () => {
    const s = await start();
    const project = testdir({
      '.agents': { tasks: { local: taskTree({ name: 'Local', implementation: 'run.sh' }, { 'run.sh': 'echo local\n' }) } },
    });
    expect((await s.request('GET', `/api/tasks?project=${encodeURIComponent(project)}`, { token: null })).status).toBe(401);
    const answer = await s.request('GET', `/api/tasks?project=${encodeURIComponent(project)}`);
    expect((answer.body as { dirName: string; level: string }[]).find((t) => t.dirName === 'local')?.level).toBe('project');
    const missing = await s.request('GET', '/api/session?project=%2Fno%2Fsuch%2Ffolder');
    expect(missing).toMatchObject({ status: 400, body: { error: { code: 'PROJECT_NOT_FOUND' } } });
  });

  it('creates, reads, updates and deletes an owner task; deleting it twice is a 404', async () => {
    const s = await start();
    const created = await s.request('POST', '/api/tasks', { body: newTask('made') });
    expect(created).toMatchObject({ status: 201, body: { dirName: 'made', plugin: null } });
    expect(fs.existsSync(path.join(s.places.capabilitiesDir, 'tasks/made/run.mjs'))).toBe(true);
    expect((await s.request('GET', '/api/tasks/made', { token: null })).body).toMatchObject({ name: 'Task made' });
    const updated = await s.request('PUT', '/api/tasks/made', { body: { description: 'changed' } });
    expect(updated).toMatchObject({ status: 200, body: { description: 'changed' } });
    expect(await s.request('DELETE', '/api/tasks/made')).toMatchObject({ status: 200, body: { deleted: { dirName: 'made' } } });
    expect(await s.request('DELETE', '/api/tasks/made')).toMatchObject({ status: 404, body: { error: { code: 'TASK_NOT_FOUND' } } });
    expect(await s.request('GET', '/api/tasks/made')).toMatchObject({ status: 404 });
    expect(await s.request('POST', '/api/tasks', { body: newTask('echo') })).toMatchObject({
      status: 409,
      body: { error: { code: 'TASK_EXISTS' } },
    });
  });

  it("refuses to change or delete a plugin's task with a 409 naming the plugin, and changes nothing", async () => {
    const s = await start();
    const file = path.join(s.places.pluginsDir, 'acme/tasks/acme-task/TASK.md');
    const before = fs.readFileSync(file, 'utf8');
    const put = await s.request('PUT', '/api/tasks/acme-task', { body: { description: 'mine now' } });
    expect(put).toMatchObject({
      status: 409,
      body: { error: { code: 'TASK_READ_ONLY', message: expect.stringContaining('plugin acme') } },
    });
    const del = await s.request('DELETE', '/api/tasks/acme-task');
    expect(del).toMatchObject({
      status: 409,
      body: { error: { code: 'TASK_READ_ONLY', message: expect.stringContaining('plugin acme') } },
    });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('answers every bad name with a 400, on every task route, never a 500', async () => {
    const s = await start();
    const names = [
      '..%2F..',
      '%2E%2E',
      '%00',
      'a%00b',
      'a%5Cb',
      '..%5C..',
      'x'.repeat(300),
      'y'.repeat(2000),
      'z'.repeat(9000),
      '%E0%A4%A',
    ];
    for (const name of names) {
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['PUT', '', { description: 'x' }],
        ['DELETE', '', undefined],
        ['POST', '/runs', {}],
      ] as const) {
        const answer = await s.request(method, `/api/tasks/${name}${suffix}`, { body });
        expect([method, name.slice(0, 20), answer.status]).toEqual([method, name.slice(0, 20), 400]);
        expect(answer.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
      }
    }
    expect(fs.readdirSync(path.join(s.places.capabilitiesDir, 'tasks')).sort()).toEqual(['echo', 'fails']);
  });

  it('answers malformed JSON, wrong types and unknown fields with a 400', async () => {
    const s = await start();
    const cases: [string, string, { raw?: string; body?: unknown; headers?: Record<string, string> }][] = [
      ['POST', '/api/tasks', { raw: '{"dirName": ' }],
      ['POST', '/api/tasks', { body: { ...newTask('t'), name: 42 } }],
      ['POST', '/api/tasks', { body: { ...newTask('t'), extra: true } }],
      ['POST', '/api/tasks', { body: [1, 2] }],
      ['POST', '/api/tasks', { body: { ...newTask('t'), implementation: { filename: '../escape.sh', content: '' } } }],
      ['POST', '/api/tasks', { body: { ...newTask('t'), dirName: '../t' } }],
      ['PUT', '/api/tasks/echo', { body: {} }],
      ['POST', '/api/tasks/echo/runs', { body: { input: 1, project: 5 } }],
      ['POST', '/api/pipelines', { body: { steps: [] } }],
      ['POST', '/api/pipelines', { body: { steps: [{ input: 1 }] } }],
      ['GET', '/api/jobs/abc', {}],
      ['GET', '/api/jobs/-1', {}],
      ['GET', '/api/jobs?limit=zero', {}],
      ['POST', '/api/plugins/..%2F../enable', {}],
      ['POST', '/api/plugins', { body: { url: 7 } }],
    ];
    for (const [method, url, options] of cases) {
      const answer = await s.request(method, url, options);
      expect([method, url, answer.status]).toEqual([method, url, 400]);
      expect(answer.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    }
    expect(fs.readdirSync(path.join(s.places.capabilitiesDir, 'tasks')).sort()).toEqual(['echo', 'fails']);
    expect(
      await s.request('POST', '/api/tasks', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    ).toMatchObject({
      status: 415,
      body: { error: { code: 'MEDIA_TYPE_UNSUPPORTED' } },
    });
    expect(await s.request('GET', '/api/nothing-here')).toMatchObject({ status: 404, body: { error: { code: 'ROUTE_NOT_FOUND' } } });
  });
});

describe('who may call', () => {
  it('refuses a change without the token, or with a wrong one, and changes nothing', async () => {
    const s = await start();
    for (const token of [null, 'wrong-token-of-some-length', '']) {
      const answer = await s.request('POST', '/api/tasks', { body: newTask('sneaky'), token });
      expect(answer).toMatchObject({ status: 401, body: { error: { code: 'TOKEN_REQUIRED' } } });
    }
    expect(await s.request('DELETE', '/api/tasks/echo', { token: null })).toMatchObject({ status: 401 });
    expect(await s.request('POST', '/api/tasks/echo/runs', { body: {}, token: null })).toMatchObject({ status: 401 });
    expect(await s.request('POST', '/rpc', { body: { jsonrpc: '2.0', id: 1, method: 'skills.list' }, token: null })).toMatchObject({
      status: 401,
    });
    expect(fs.existsSync(path.join(s.places.capabilitiesDir, 'tasks/sneaky'))).toBe(false);
    expect(fs.existsSync(path.join(s.places.capabilitiesDir, 'tasks/echo'))).toBe(true);
    expect((await s.request('GET', '/api/jobs')).body).toEqual([]);
  });

  it('needs the token to read jobs and notifications, in the header or (for a GET) the query', async () => {
    const s = await start();
    expect(await s.request('GET', '/api/jobs', { token: null })).toMatchObject({ status: 401 });
    expect(await s.request('GET', '/api/notifications', { token: null })).toMatchObject({ status: 401 });
    // The router decodes paths before matching; the guard decides on the matched route, so an
    // encoded spelling reaches no protected read without the token.
    for (const sneaky of ['/api/%6Aobs', '/api/%6Aobs/1', '/api/n%6Ftifications', '/api/jobs#x']) {
      expect((await s.request('GET', sneaky, { token: null })).status).toBe(401);
    }
    expect(await s.request('GET', `/api/notifications?token=${TOKEN}`, { token: null })).toMatchObject({ status: 200 });
    expect(await s.request('POST', `/api/tasks?token=${TOKEN}`, { body: newTask('q'), token: null })).toMatchObject({ status: 401 });
  });

  it('refuses a foreign Origin or Host with a 403 before anything changes, and accepts its own', async () => {
    const s = await start();
    const port = s.server.port;
    const foreignOrigin = await s.request('POST', '/api/tasks', { body: newTask('csrf'), headers: { origin: 'http://evil.example' } });
    expect(foreignOrigin).toMatchObject({ status: 403, body: { error: { code: 'ORIGIN_REFUSED' } } });
    const nullOrigin = await s.request('DELETE', '/api/tasks/echo', { headers: { origin: 'null' } });
    expect(nullOrigin).toMatchObject({ status: 403 });
    const otherPort = await s.request('DELETE', '/api/tasks/echo', { headers: { origin: `http://127.0.0.1:${port + 1}` } });
    expect(otherPort).toMatchObject({ status: 403 });
    const rebound = await s.request('DELETE', '/api/tasks/echo', { headers: { host: `attacker.example:${port}` } });
    expect(rebound).toMatchObject({ status: 403, body: { error: { code: 'HOST_REFUSED' } } });
    const reboundRead = await s.request('GET', '/api/session', { headers: { host: 'attacker.example' }, token: null });
    expect(reboundRead).toMatchObject({ status: 403 });
    expect(fs.existsSync(path.join(s.places.capabilitiesDir, 'tasks/echo'))).toBe(true);
    expect(fs.existsSync(path.join(s.places.capabilitiesDir, 'tasks/csrf'))).toBe(false);

    const own = await s.request('POST', '/api/tasks', {
      body: newTask('fine'),
      headers: { origin: `http://localhost:${port}`, host: `localhost:${port}` },
    });
    expect(own.status).toBe(201);
  });
});

describe('runs, jobs and their live output', () => {
  it('refuses a run of a missing task (404) or one without an interpreter (409), queueing nothing', async () => {
    const s = await start({
      tree: workspaceTree({ ruby: taskTree({ name: 'Ruby', implementation: 'run.rb' }, { 'run.rb': 'puts 1' }) }),
      plugins: [],
    });
    expect(await s.request('POST', '/api/tasks/nope/runs', { body: {} })).toMatchObject({
      status: 404,
      body: { error: { code: 'TASK_NOT_FOUND' } },
    });
    expect(await s.request('POST', '/api/tasks/ruby/runs', { body: {} })).toMatchObject({
      status: 409,
      body: { error: { code: 'TASK_NOT_RUNNABLE' } },
    });
    expect(await s.request('POST', '/api/pipelines', { body: { steps: [{ task: 'echo' }, { task: 'nope' }] } })).toMatchObject({
      status: 404,
    });
    expect((await s.request('GET', '/api/jobs')).body).toEqual([]);
    expect(await s.request('GET', '/api/jobs/12345')).toMatchObject({ status: 404, body: { error: { code: 'JOB_NOT_FOUND' } } });
    expect(await s.request('GET', '/api/pipelines/12345')).toMatchObject({ status: 404, body: { error: { code: 'PIPELINE_NOT_FOUND' } } });
  });

  it('streams a running job: output chunks as printed, then the final job', async () => {
    const script = `
for (let i = 1; i <= 3; i += 1) {
  process.stdout.write('line ' + i + '\\n');
  await new Promise((done) => setTimeout(done, 150));
}
process.stderr.write('warned\\n');
`;
    const s = await start({
      tree: workspaceTree({ ticks: taskTree({ name: 'Ticks', implementation: 'run.mjs' }, { 'run.mjs': script }) }),
      plugins: [],
    });
    const submitted = await s.request('POST', '/api/tasks/ticks/runs', { body: {} });
    const id = (submitted.body as { job: { id: number } }).job.id;
    const events = await readEventStream(s.server.port, `/api/jobs/${id}/stream`);
    const output = events
      .filter((e) => e.event === 'output')
      .map((e) => (e.data as { stream: string; text: string }).text)
      .join('');
    expect(output).toBe('line 1\nline 2\nline 3\nwarned\n');
    expect(events.at(-1)).toMatchObject({
      event: 'end',
      data: { id, status: 'succeeded', exitCode: 0, output: 'line 1\nline 2\nline 3\n' },
    });

    const replay = await readEventStream(s.server.port, `/api/jobs/${id}/stream`);
    expect(replay.map((e) => e.event)).toEqual(['output', 'output', 'end']);
  });
});

describe('stopping', () => {
  it('ends open event streams when the server stops, and stops its running tasks', async () => {
    const s = await start({
      tree: workspaceTree({ forever: taskTree({ name: 'Forever', implementation: 'run.sh' }, { 'run.sh': 'sleep 60\n' }) }),
      plugins: [],
    });
    const inbox = readEventStream(s.server.port, '/api/notifications/stream');
    const id = ((await s.request('POST', '/api/tasks/forever/runs', { body: {} })).body as { job: { id: number } }).job.id;
    const stream = readEventStream(s.server.port, `/api/jobs/${id}/stream`);
    await expect.poll(async () => (await resolve(s.container, JobQueue).listRunning())[0]?.process?.pid ?? 0).toBeGreaterThan(0);
    const started = Date.now();
    await s.server.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await stream).map((e) => e.event)).toContain('status');
    expect((await inbox).map((e) => (e.data as { notification: string }).notification)).toContain('task.run.started');
    expect(await resolve(s.container, JobQueue).get(id)).toMatchObject({ status: 'failed', error: 'server stopped while running' });
  });
});

describe('notifications', () => {
  it("stores a run's start and end in the inbox, newest first, and streams them live", async () => {
    const s = await start();
    const live = readEventStream(s.server.port, '/api/notifications/stream', (events) => events.length >= 2);
    await new Promise((done) => setTimeout(done, 100));
    const job = ((await s.request('POST', '/api/tasks/echo/runs', { body: { input: 1 } })).body as { job: { id: number } }).job;
    await s.waitForJob(job.id);
    const inbox = (await s.request('GET', '/api/notifications')).body as {
      notification: string;
      data: { jobId: number };
      read: boolean;
      severity: string;
    }[];
    expect(inbox.map((n) => n.notification)).toEqual(['task.run.succeeded', 'task.run.started']);
    expect(inbox[0]).toMatchObject({ data: { jobId: job.id, taskDirName: 'echo' }, read: false, severity: 'success' });
    const streamed = await live;
    expect(streamed.map((e) => (e.data as { notification: string }).notification)).toEqual(['task.run.started', 'task.run.succeeded']);

    const first = inbox[0] as unknown as { id: number };
    expect(await s.request('POST', `/api/notifications/${first.id}/read`)).toMatchObject({ status: 200, body: { read: true } });
    expect(((await s.request('GET', '/api/notifications?unread=true')).body as unknown[]).length).toBe(1);
  });

  it('refuses events no enabled catalogue declares: the run goes on, nothing is stored', async () => {
    const tree = workspaceTree();
    const capabilities = tree.capabilities as Record<string, unknown>;
    delete capabilities.notifications;
    const s = await start({ tree, plugins: [] });
    const job = ((await s.request('POST', '/api/tasks/echo/runs', { body: {} })).body as { job: { id: number } }).job;
    expect((await s.waitForJob(job.id)).status).toBe('succeeded');
    expect((await s.request('GET', '/api/notifications')).body).toEqual([]);

    writeTree(s.places.capabilitiesDir, {
      notifications: {
        'other.json': JSON.stringify({ name: 'other', notifications: [{ id: 'task.run.started', title: 'Started', severity: 'info' }] }),
      },
    });
    const second = ((await s.request('POST', '/api/tasks/echo/runs', { body: {} })).body as { job: { id: number } }).job;
    await s.waitForJob(second.id);
    const inbox = (await s.request('GET', '/api/notifications')).body as { notification: string; catalogue: string }[];
    expect(inbox).toEqual([expect.objectContaining({ notification: 'task.run.started', catalogue: 'other' })]);
  });
});

describe('plugins over HTTP', () => {
  it('lists, disables, enables and uninstalls, refusing bad and unknown names', async () => {
    const s = await start();
    expect((await s.request('GET', '/api/plugins', { token: null })).body).toEqual([
      expect.objectContaining({ name: 'acme', enabled: true }),
    ]);
    expect(await s.request('POST', '/api/plugins/acme/disable')).toMatchObject({ status: 200, body: { name: 'acme', enabled: false } });
    const session = (await s.request('GET', '/api/session')).body as { tasks: { plugin: string | null }[] };
    expect(session.tasks.some((t) => t.plugin === 'acme')).toBe(false);
    expect(await s.request('POST', '/api/tasks/acme-task/runs', { body: {} })).toMatchObject({ status: 404 });
    expect(await s.request('POST', '/api/plugins/acme/enable')).toMatchObject({ status: 200, body: { enabled: true } });
    expect(await s.request('POST', '/api/plugins/Not_A_Name/enable')).toMatchObject({
      status: 400,
      body: { error: { code: 'PLUGIN_NAME_INVALID' } },
    });
    expect(await s.request('POST', '/api/plugins/ghost/enable')).toMatchObject({ status: 404 });
    expect(await s.request('DELETE', '/api/plugins/acme')).toMatchObject({ status: 200, body: { name: 'acme' } });
    expect(fs.existsSync(path.join(s.places.pluginsDir, 'acme'))).toBe(false);
    expect((await s.request('GET', '/api/plugins')).body).toEqual([]);
  });
});

describe('JSON-RPC', () => {
  const call = (s: TestServer, method: string, params?: unknown) =>
    s.request('POST', '/rpc', { body: { jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) } });

  it('lists every skill and server of every root, disabled plugins included, and the active ones', async () => {
    const s = await start();
    await s.request('POST', '/api/plugins/acme/disable');
    const skills = (await call(s, 'skills.list')).body as { result: { id: string; plugin: string | null; on: boolean; level: string }[] };
    expect(skills.result.map((r) => [r.id, r.plugin, r.on, r.level])).toEqual([
      ['owner-skill', null, true, 'global'],
      ['acme-skill', 'acme', false, 'global'],
    ]);
    expect(((await call(s, 'skills.active', {})).body as { result: { id: string }[] }).result.map((r) => r.id)).toEqual(['owner-skill']);
    const servers = (await call(s, 'mcp.list')).body as { result: { id: string; on: boolean }[] };
    expect(servers.result.map((r) => [r.id, r.on])).toEqual([
      ['owner-mcp', true],
      ['acme-mcp', false],
    ]);
    expect(((await call(s, 'mcp.active')).body as { result: { id: string }[] }).result.map((r) => r.id)).toEqual(['owner-mcp']);
  });

  it('answers JSON-RPC errors for bad calls, with HTTP 200', async () => {
    const s = await start();
    expect(await s.request('POST', '/rpc', { raw: '{"jsonrpc":' })).toMatchObject({ status: 200, body: { error: { code: -32700 } } });
    expect((await call(s, 'skills.nope')).body).toMatchObject({ id: 7, error: { code: -32601 } });
    expect((await call(s, 'skills.list', { project: 5 })).body).toMatchObject({ error: { code: -32602 } });
    expect((await call(s, 'skills.list', { unknown: true })).body).toMatchObject({ error: { code: -32602 } });
    expect((await call(s, 'skills.list', { project: '/no/such/folder' })).body).toMatchObject({
      error: { code: -32602, data: { code: 'PROJECT_NOT_FOUND' } },
    });
    expect(await s.request('POST', '/rpc', { body: { jsonrpc: '2.0', method: 'skills.list' } })).toMatchObject({ status: 204 });
  });
});

describe('one server per data folder', () => {
  it('refuses a second server on the same data folder with a clear error', async () => {
    const s = await start({ plugins: [] });
    await expect(startServer(s.container, { port: 0, token: TOKEN, log: () => undefined })).rejects.toMatchObject({
      code: 'SERVER_ALREADY_RUNNING',
      message: expect.stringContaining(s.places.dataDir),
    });
    expect((await sendRequest(s.server.port, 'GET', '/api/health')).body).toEqual({ ok: true });
  });
});

describe('the capability screen', () => {
  it("serves the web package's page at / behind the same Host check, and nothing outside its folder", async () => {
    const s = await start({ plugins: [] });
    const page = await s.request('GET', '/', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.text).toContain('<html');
    const script = await s.request('GET', '/api.js', { token: null });
    expect(script.headers['content-type']).toMatch(/javascript/);
    for (const escape of ['/../package.json', '/%2e%2e/package.json', '/..%2Fsrc%2Findex.ts']) {
      expect([404, 403, 400]).toContain((await s.request('GET', escape, { token: null })).status);
    }
    expect(await s.request('GET', '/', { token: null, headers: { host: `rebound.example:${s.server.port}` } })).toMatchObject({
      status: 403,
    });
  });
});
