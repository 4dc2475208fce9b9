import fs from 'node:fs';
import path from 'node:path';
import { backendSkipReason, sqlBackends } from '@loadout/db/testing';
import type { Job, JobSummary } from '@loadout/jobs';
import { taskTree } from '@loadout/jobs/testing';
import { closeKernel } from '@loadout/kernel';
import { isProcessAlive } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { dropFreshDatabases, freshDatabase } from './freshDatabase.js';
import { exited, type Served, serve, stopServedProcesses } from './servedProcess.js';
import { markLines } from './taskMarks.js';
import { createTestContainer, placesIn, pluginTree, registerPlugin, sendRequest, workspaceTree } from './support.js';

// Several `loadout serve` processes, each with its own data folder and port, on one PostgreSQL
// database: they share the queue, the inbox and the on/off switches.

const postgres = sqlBackends.find((backend) => backend.name === 'postgres');
const skip = postgres === undefined ? 'no PostgreSQL backend' : backendSkipReason(postgres);

afterEach(async () => {
  await stopServedProcesses();
  removeTestdirs();
  await dropFreshDatabases();
});

/**
 * Appends `start <n> <pid> <server pid>` when it starts and `end <n> <pid>` when it ends to the
 * project's `marks.txt`, and `overlap <n>` when an earlier start of the same run is still alive:
 * the record, written by the tasks themselves, of who ran what. It sleeps `input.ms` in between.
 * The server is the one its run id names (a task's parent is the server's guardian, which starts it).
 */
const marker = `
import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const file = process.env.LOADOUT_PROJECT + '/marks.txt';
const alive = (pid) => {
  try {
    const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch { return false; }
};
const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\\n').filter(Boolean) : [];
const ended = new Set(lines.filter((l) => l.startsWith('end ' + input.n + ' ')).map((l) => l.split(' ')[2]));
const open = lines.filter((l) => l.startsWith('start ' + input.n + ' ')).map((l) => l.split(' ')[2]).filter((pid) => !ended.has(pid) && alive(Number(pid)));
fs.appendFileSync(file, 'start ' + input.n + ' ' + process.pid + ' ' + process.env.LOADOUT_RUN_ID.split('-')[0] + '\\n' + (open.length > 0 ? 'overlap ' + input.n + '\\n' : ''));
if (input.ms > 0) await new Promise((done) => setTimeout(done, input.ms));
fs.appendFileSync(file, 'end ' + input.n + ' ' + process.pid + '\\n');
`;

interface Mark {
  readonly what: string;
  readonly n: number;
  readonly pid: number;
  readonly server: number;
}

function marksIn(project: string): Mark[] {
  return markLines(project, 'marks.txt').map(([what, n, pid, server]) => ({
    what: what as string,
    n: Number(n),
    pid: Number(pid),
    server: Number(server),
  }));
}

/** A host: its own workspace (the same task, resolved by dirName there) and data folder. */
function host(): string {
  return testdir(workspaceTree({ mark: taskTree({ name: 'Mark', implementation: 'run.mjs' }, { 'run.mjs': marker }) }));
}

async function submit(server: Served, project: string, input: unknown): Promise<number> {
  const answer = await sendRequest(server.port, 'POST', '/api/tasks/mark/runs', { body: { input, project }, token: server.token });
  expect(answer.status).toBe(202);
  return (answer.body as { job: { id: number } }).job.id;
}

async function jobs(server: Served): Promise<JobSummary[]> {
  return (await sendRequest(server.port, 'GET', '/api/jobs?limit=500', { token: server.token })).body as JobSummary[];
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe('several servers on one PostgreSQL database', () => {
  it.skipIf(skip !== null)('share the queue: 200 runs sent alternately to two servers each ran exactly once, on both hosts', async () => {
    const url = await freshDatabase();
    const project = testdir({});
    // One server names the database with the flag, the other through the environment.
    const [a, b] = await Promise.all([serve(host(), ['--database-url', url]), serve(host(), [], { LOADOUT_DATABASE_URL: url })]);
    const ids: number[] = [];
    for (let n = 0; n < 200; n += 1) ids.push(await submit(n % 2 === 0 ? a : b, project, { n, ms: 0 }));
    expect(new Set(ids).size).toBe(200);

    const finished = await until(async () => {
      const listed = await jobs(a);
      return listed.filter((job) => job.status === 'succeeded').length === 200 ? listed : undefined;
    }, 'every run to succeed');
    expect(finished.map((job) => job.id).sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    // Any server answers for any job: b reads a job a queued.
    expect(((await sendRequest(b.port, 'GET', `/api/jobs/${ids[0]}`, { token: b.token })).body as Job).status).toBe('succeeded');

    const starts = marksIn(project).filter((mark) => mark.what === 'start');
    expect(starts).toHaveLength(200);
    expect(new Set(starts.map((mark) => mark.n)).size).toBe(200);
    // Both hosts' workers took runs, whichever server had accepted them.
    expect(new Set(starts.map((mark) => mark.server))).toEqual(new Set([a.child.pid, b.child.pid]));
  });

  it.skipIf(skip !== null)(
    "finish a killed server's runs after its lease: its task processes die with it, and no run starts twice at once",
    async () => {
      const url = await freshDatabase();
      const project = testdir({});
      const env = { LOADOUT_DATABASE_URL: url, LOADOUT_JOB_LEASE_SECONDS: '2' };
      const a = await serve(host(), ['--workers', '2'], env);
      const ids: number[] = [];
      for (let n = 0; n < 6; n += 1) ids.push(await submit(a, project, { n, ms: 1500 }));
      await until(
        async () => (marksIn(project).filter((mark) => mark.what === 'start').length >= 2 ? true : undefined),
        'a to start two runs',
      );

      a.child.kill('SIGKILL');
      await exited(a.child);
      const running = marksIn(project).filter((mark) => mark.what === 'start' && mark.server === a.child.pid);
      // The guardian stops what the dead server started: nothing of it runs on.
      await until(async () => (running.every((mark) => !isProcessAlive(mark.pid)) ? true : undefined), "a's task processes to die", 10_000);

      const b = await serve(host(), [], env);
      await until(async () => {
        const listed = await jobs(b);
        return listed.length === 6 && listed.every((job) => job.status === 'succeeded') ? true : undefined;
      }, 'b to finish every run');

      const marks = marksIn(project);
      expect(marks.filter((mark) => mark.what === 'overlap')).toEqual([]);
      for (let n = 0; n < 6; n += 1) {
        const starts = marks.filter((mark) => mark.what === 'start' && mark.n === n);
        expect(starts.length).toBeGreaterThanOrEqual(1);
        expect(starts.length).toBeLessThanOrEqual(2);
        // The run that finished is b's: a's never ended.
        expect(
          marks.some(
            (mark) => mark.what === 'end' && mark.n === n && starts.some((start) => start.pid === mark.pid && start.server === b.child.pid),
          ),
        ).toBe(true);
      }
      const byId = (x: number, y: number): number => x - y;
      const taken = (await jobs(b)).filter((job) => job.attempts === 2).map((job) => job.id);
      expect(taken.sort(byId)).toEqual(ids.filter((_, n) => running.some((mark) => mark.n === n)).sort(byId));
    },
  );

  it.skipIf(skip !== null)(
    "share the on/off switches and the session stamp: a switch set through one server moves the other's ETag and tells its MCP clients",
    async () => {
      const url = await freshDatabase();
      const [a, b] = await Promise.all([
        serve(host(), [], { LOADOUT_DATABASE_URL: url }),
        serve(host(), [], { LOADOUT_DATABASE_URL: url }),
      ]);
      const sessionOf = (server: Served, etag?: string) =>
        sendRequest(server.port, 'GET', '/api/session', {
          token: null,
          ...(etag === undefined ? {} : { headers: { 'if-none-match': etag } }),
        });
      const skillsIn = (body: unknown): string[] => (body as { skills: { id: string }[] }).skills.map((skill) => skill.id);

      // B's answer is kept: revalidating it costs a 304 while nothing changed anywhere.
      const first = await sessionOf(b);
      expect(skillsIn(first.body)).toContain('owner-skill');
      const etag = String(first.headers.etag);
      expect((await sessionOf(b, etag)).status).toBe(304);

      // An MCP client of B lists the task as a tool.
      const notices: string[] = [];
      const client = new Client({ name: 'loadout-e2e', version: '1.0.0' });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices.push('tools'));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${b.port}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${b.token}` } },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('mark');

        const set = async (kind: string, id: string, enabled: boolean): Promise<void> => {
          const answer = await sendRequest(a.port, 'POST', '/rpc', {
            body: { jsonrpc: '2.0', id: 1, method: 'capability.set', params: { capabilities: [{ kind, id, enabled }] } },
            token: a.token,
          });
          expect(answer.body).toMatchObject({ result: { errors: [] } });
        };
        await set('skill', 'owner-skill', false);
        // B's kept answer went stale with A's write: the revalidation gets the new body, not a 304.
        const changed = await until(
          async () => {
            const answer = await sessionOf(b, etag);
            return answer.status === 200 ? answer : undefined;
          },
          "B's ETag to move",
          5000,
        );
        expect(skillsIn(changed.body)).not.toContain('owner-skill');
        expect(changed.headers.etag).not.toBe(etag);
        expect((await sessionOf(b, String(changed.headers.etag))).status).toBe(304);
        expect(skillsIn((await sessionOf(a)).body)).not.toContain('owner-skill');

        // A switch through A that hides a tool reaches B's MCP client as tools/list_changed.
        await set('task', 'mark', false);
        await until(async () => (notices.includes('tools') ? true : undefined), 'tools/list_changed on B', 10_000);
        expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('mark');
        // And showing it again is heard too.
        const heard = notices.length;
        await set('task', 'mark', true);
        await until(async () => (notices.length > heard ? true : undefined), 'a second tools/list_changed on B', 10_000);
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('mark');
      } finally {
        await client.close();
      }
    },
  );

  it.skipIf(skip !== null)(
    "share trust: a project trusted through one server is trusted in the other's next session, and its task runs there",
    async () => {
      const url = await freshDatabase();
      // B names the database with a password (the test cluster lets anyone in): it is never repeated.
      const withPassword = new URL(url);
      withPassword.password = 'not-to-be-repeated';
      const [a, b] = await Promise.all([
        serve(host(), [], { LOADOUT_DATABASE_URL: url }),
        serve(host(), [], { LOADOUT_DATABASE_URL: withPassword.toString() }),
      ]);
      const project = testdir({
        '.agents': {
          tasks: { local: taskTree({ name: 'Local', implementation: 'run.sh' }, { 'run.sh': 'cat >/dev/null\necho local\n' }) },
        },
      });
      const sessionOf = (server: Served, etag?: string) =>
        sendRequest(server.port, 'GET', `/api/session?project=${encodeURIComponent(project)}`, {
          token: server.token,
          ...(etag === undefined ? {} : { headers: { 'if-none-match': etag } }),
        });
      const holdOf = (body: unknown): unknown =>
        (body as { tasks: { id: string; held?: { decidedBy: string } }[] }).tasks.find((task) => task.id === 'local')?.held?.decidedBy ??
        null;
      const run = (server: Served) =>
        sendRequest(server.port, 'POST', '/api/tasks/local/runs', { body: { input: {}, project }, token: server.token });

      // Each says, as it starts, that its plugins are its own and how hosts keep them equal.
      const told = b.description as unknown as { plugins: unknown; notes: string[] };
      expect(told.plugins).toEqual({
        shared: false,
        dataDir: expect.any(String),
        lockFile: expect.stringMatching(/capabilities\/loadout-lock\.json$/),
      });
      expect(told.notes).toEqual(expect.arrayContaining([expect.stringContaining('`loadout plugins sync` makes them match')]));
      expect(JSON.stringify(b.description)).not.toContain('not-to-be-repeated');

      const before = await sessionOf(b);
      expect(holdOf(before.body)).toBe('untrusted-project');
      expect((await run(b)).body).toMatchObject({ error: { code: 'CAPABILITY_UNTRUSTED' } });

      expect((await sendRequest(a.port, 'POST', '/api/trust', { body: { project }, token: a.token })).status).toBe(201);
      const after = await until(
        async () => {
          const answer = await sessionOf(b, String(before.headers.etag));
          return answer.status === 200 ? answer : undefined;
        },
        "B's ETag to move after the trust",
        5000,
      );
      expect(holdOf(after.body)).toBeNull();
      expect((await sendRequest(b.port, 'GET', '/api/trust', { token: b.token })).body).toEqual([
        expect.objectContaining({ path: fs.realpathSync(project) }),
      ]);
      const accepted = await run(b);
      expect(accepted.status).toBe(202);
    },
  );

  it.skipIf(skip !== null)(
    'share plugin approvals by what each clone runs: approved through one host, the same plugin runs on the other; a clone that runs something else stays held',
    async () => {
      const url = await freshDatabase();
      // Each host has its own clone of plugin acme, recorded in its own data folder.
      const withAcme = async (): Promise<string> => {
        const home = testdir({ ...workspaceTree(), plugins: { acme: pluginTree('acme') } });
        const setup = createTestContainer(placesIn(home), false);
        try {
          await registerPlugin(setup, 'acme', false);
        } finally {
          closeKernel(setup);
          await setup.dispose();
        }
        return home;
      };
      const [homeA, homeB] = [await withAcme(), await withAcme()];
      const [a, b] = await Promise.all([serve(homeA, [], { LOADOUT_DATABASE_URL: url }), serve(homeB, [], { LOADOUT_DATABASE_URL: url })]);
      const holdIn = async (server: Served): Promise<string | null> =>
        (
          (await sendRequest(server.port, 'GET', '/api/session', { token: null })).body as {
            tasks: { id: string; held?: { decidedBy: string } }[];
          }
        ).tasks.find((task) => task.id === 'acme-task')?.held?.decidedBy ?? null;
      expect(await holdIn(b)).toBe('unapproved-plugin');

      expect((await sendRequest(a.port, 'POST', '/api/plugins/acme/approve', { token: a.token })).status).toBe(200);
      await until(async () => ((await holdIn(b)) === null ? true : undefined), 'the approval made through A to free the task on B', 5000);

      // B's clone changes what the task runs: held there, still approved on A.
      fs.writeFileSync(path.join(homeB, 'plugins', 'acme', 'tasks', 'acme-task', 'run.sh'), 'cat >/dev/null\necho "something else"\n');
      await until(async () => ((await holdIn(b)) === 'unapproved-plugin' ? true : undefined), "B's changed clone to be held", 5000);
      expect(await holdIn(a)).toBeNull();
    },
  );
});
