import net from 'node:net';
import { backendSkipReason, sqlBackends } from '@loadout/db/testing';
import type { Job } from '@loadout/jobs';
import { taskTree } from '@loadout/jobs/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { dropFreshDatabases, freshDatabase } from '../server/freshDatabase.js';
import { type Served, serve, stopServedProcesses } from '../server/servedProcess.js';
import { sendRequest, workspaceTree } from '../server/support.js';
import { markLines } from '../server/taskMarks.js';

// Item M7 of issue 37: on a shared PostgreSQL queue, a server that cannot renew its lease (frozen
// with SIGSTOP, or cut off from the database) must have stopped its task before another server
// may take the job. The task itself writes when it started and, every 50 ms, that it still runs:
// the file is the record of who ran when, whatever the servers believe.

const postgres = sqlBackends.find((backend) => backend.name === 'postgres');
const skip = postgres === undefined ? 'no PostgreSQL backend' : backendSkipReason(postgres);

const proxies: TcpProxy[] = [];
const frozen: Served[] = [];
afterEach(async () => {
  for (const server of frozen.splice(0)) server.child.kill('SIGCONT');
  await stopServedProcesses();
  for (const proxy of proxies.splice(0)) proxy.close();
  removeTestdirs();
  await dropFreshDatabases();
});

/** Appends `start|alive|end <pid> <server pid> <epoch ms>` to the project's `times.txt`, `alive` every 50 ms for `input.ms`. */
const clock = `
import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const file = process.env.LOADOUT_PROJECT + '/times.txt';
const server = process.env.LOADOUT_RUN_ID.split('-')[0];
const mark = (what) => fs.appendFileSync(file, what + ' ' + process.pid + ' ' + server + ' ' + Date.now() + '\\n');
mark('start');
const until = Date.now() + input.ms;
while (Date.now() < until) {
  await new Promise((done) => setTimeout(done, 50));
  mark('alive');
}
mark('end');
`;

interface Time {
  readonly what: string;
  readonly pid: number;
  readonly server: number;
  readonly at: number;
}

function timesIn(project: string): Time[] {
  return markLines(project, 'times.txt').map(([what, pid, server, at]) => ({
    what: what as string,
    pid: Number(pid),
    server: Number(server),
    at: Number(at),
  }));
}

/** Each run (task process) of the file, from its start to the last line it wrote. */
function runsIn(project: string): { pid: number; server: number; from: number; to: number }[] {
  const runs = new Map<number, { pid: number; server: number; from: number; to: number }>();
  for (const time of timesIn(project)) {
    const run = runs.get(time.pid);
    if (run === undefined) runs.set(time.pid, { pid: time.pid, server: time.server, from: time.at, to: time.at });
    else run.to = time.at;
  }
  return [...runs.values()].sort((a, b) => a.from - b.from);
}

/**
 * Passes TCP connections through to the test PostgreSQL until {@link cut}: from then on it passes
 * no byte either way and answers no new connection, and says nothing to either side, as a network
 * that drops packets does.
 */
class TcpProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private isCut = false;

  private constructor(target: URL) {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('error', () => undefined);
      if (this.isCut) {
        client.pause();
        return;
      }
      const upstream = net.connect(Number(target.port), target.hostname);
      this.sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }

  static async start(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL(databaseUrl);
    const proxy = new TcpProxy(target);
    await new Promise<void>((done) => proxy.server.listen(0, '127.0.0.1', done));
    const url = new URL(databaseUrl);
    url.port = String((proxy.server.address() as net.AddressInfo).port);
    proxies.push(proxy);
    return { proxy, url: url.toString() };
  }

  cut(): void {
    this.isCut = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
    }
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

/** A host: its own workspace with the clock task, and its own data folder. */
function host(): string {
  return testdir(workspaceTree({ clock: taskTree({ name: 'Clock', implementation: 'run.mjs' }, { 'run.mjs': clock }) }));
}

/** The lease of these servers: 2 s, so a stalled server's job is taken within seconds. */
const LEASE_ENV = { LOADOUT_JOB_LEASE_SECONDS: '2' };

/**
 * Starts server A (through `aUrl`) and has it start a 7-second run; once the run is under way,
 * `stall` takes A away, and server B (straight on the database) starts. Returns when B's run of the
 * same job has ended, with every run the task recorded.
 */
async function stallDuringRun(
  databaseUrl: string,
  aUrl: string,
  stall: (a: Served) => void,
): Promise<{ a: Served; b: Served; project: string }> {
  const project = testdir({});
  const a = await serve(host(), ['--workers', '1'], { ...LEASE_ENV, LOADOUT_DATABASE_URL: aUrl });
  const submitted = await sendRequest(a.port, 'POST', '/api/tasks/clock/runs', { body: { input: { ms: 7000 }, project }, token: a.token });
  expect(submitted.status).toBe(202);
  const id = (submitted.body as { job: Job }).job.id;
  await expect.poll(() => timesIn(project).filter((time) => time.what === 'alive').length, { timeout: 60_000 }).toBeGreaterThan(2);
  stall(a);
  const b = await serve(host(), ['--workers', '1'], { ...LEASE_ENV, LOADOUT_DATABASE_URL: databaseUrl });
  await expect
    .poll(async () => ((await sendRequest(b.port, 'GET', `/api/jobs/${id}`, { token: b.token })).body as Job).status, {
      timeout: 60_000,
      interval: 200,
    })
    .toBe('succeeded');
  return { a, b, project };
}

/** A's run stopped before B's began: the two never ran at the same time. */
function expectNoOverlap(project: string, a: Served, b: Served): void {
  const runs = runsIn(project);
  const [first, ...moreOfA] = runs.filter((run) => run.server === a.child.pid);
  const [second, ...moreOfB] = runs.filter((run) => run.server === b.child.pid);
  if (first === undefined || second === undefined) throw new Error(`expected a run on each server, got ${JSON.stringify(runs)}`);
  expect([moreOfA, moreOfB]).toEqual([[], []]);
  expect(first.to).toBeLessThan(second.from);
  // A's run never reached its end: it was stopped.
  expect(timesIn(project).some((time) => time.what === 'end' && time.pid === first.pid)).toBe(false);
}

describe('37 M7 a server that cannot renew its lease on PostgreSQL', () => {
  it.skipIf(skip !== null)(
    '37 M7 frozen with SIGSTOP mid-task: its task is killed before another server takes the job, and the two runs never overlap',
    async () => {
      const url = await freshDatabase();
      const { a, b, project } = await stallDuringRun(url, url, (server) => {
        server.child.kill('SIGSTOP');
        frozen.push(server);
      });
      expectNoOverlap(project, a, b);
    },
    150_000,
  );

  it.skipIf(skip !== null)(
    '37 M7 cut off from the database mid-task: its task is killed before another server takes the job, and the two runs never overlap',
    async () => {
      const url = await freshDatabase();
      const { proxy, url: throughProxy } = await TcpProxy.start(url);
      const { a, b, project } = await stallDuringRun(url, throughProxy, () => proxy.cut());
      expectNoOverlap(project, a, b);
    },
    150_000,
  );
});
