import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dbModule } from '@loadout/db';
import { contribute, createKernel, loadModules, PluginSource, resolve, resolvePlaces, type Session, SessionLoader } from '@loadout/kernel';
import { isProcessAlive, processStartTime } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { notificationsModule } from '@loadout/notifications';
import { tasksModule } from '@loadout/tasks';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { JobOutputFolders } from './JobOutputFolders.js';
import { JobQueue } from './JobQueue.js';
import { JobScheduler } from './JobScheduler.js';
import { jobsModule } from './jobsModule.js';
import { configureJobWorkers } from './jobsRunModule.js';
import { JobWorkers } from './JobWorkers.js';
import { echoTask, runNotificationCatalogue, taskTree } from './testing/index.js';

// The runner's part of the module loaded first, as the command line does for every command but a
// session: the containers below are whole.
beforeAll(() => loadModules([jobsModule]));

const containers: DependencyContainer[] = [];
const children: number[] = [];
afterEach(async () => {
  for (const container of containers.splice(0)) {
    await container.resolve(JobWorkers).stop();
    await container.dispose();
  }
  for (const pid of children.splice(0)) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  removeTestdirs();
});

/** Prints its pid, starts a child that prints its own, then waits to be stopped. */
const sleeper = `
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
process.stdout.write(JSON.stringify({ pid: process.pid, child: child.pid }) + '\\n');
setTimeout(() => {}, 60000);
`;

/** Fails until a marker file exists, then succeeds; makes the marker on its first run. */
const flaky = `
import fs from 'node:fs';
const marker = process.env.LOADOUT_TASK_DIR + '/../../ran-once';
if (!fs.existsSync(marker)) { fs.writeFileSync(marker, ''); console.error('first try fails'); process.exit(3); }
console.log('second try works');
`;

/** Writes a file named after its attempt into its output folder; the first attempt fails after writing. */
const writer = `
import fs from 'node:fs';
import path from 'node:path';
const marker = process.env.LOADOUT_TASK_DIR + '/../../wrote-once';
const first = !fs.existsSync(marker);
fs.writeFileSync(path.join(process.env.LOADOUT_OUTPUT_DIR, first ? 'first.txt' : 'second.txt'), 'from the run');
if (first) { fs.writeFileSync(marker, ''); process.exit(3); }
`;

function workspace(): { container: DependencyContainer; home: string } {
  const home = testdir({
    capabilities: {
      notifications: { 'loadout-runs.json': runNotificationCatalogue },
      tasks: {
        echo: taskTree({ name: 'Echo', implementation: 'run.mjs' }, { 'run.mjs': echoTask }),
        sleeper: taskTree({ name: 'Sleeper', implementation: 'run.mjs' }, { 'run.mjs': sleeper }),
        flaky: taskTree({ name: 'Flaky', implementation: 'run.mjs', retries: 2 }, { 'run.mjs': flaky }),
        writer: taskTree({ name: 'Writer', implementation: 'run.mjs', retries: 1 }, { 'run.mjs': writer }),
        broken: taskTree({ name: 'Broken', implementation: 'run.sh', retries: 1 }, { 'run.sh': 'echo out; echo "bad" >&2; exit 2\n' }),
      },
    },
  });
  const container = createKernel({ places: resolvePlaces({}, home) }, [
    dbModule,
    notificationsModule,
    tasksModule,
    jobsModule,
    { name: 'test', now: (c) => contribute(c, PluginSource, { listInstalledPlugins: () => [] }) },
  ]);
  configureJobWorkers(container, { count: 1, retryBaseMs: 30, pollMs: 50 });
  containers.push(container);
  return { container, home };
}

async function session(container: DependencyContainer): Promise<Session> {
  return container.resolve(SessionLoader).open();
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('JobScheduler.runToEnd without workers (a process running its own job)', () => {
  it('stores exactly one job, runs it here through the shared attempt, streams output and returns it finished', async () => {
    const { container } = workspace();
    const chunks: string[] = [];
    let queued: number | null = null;
    const job = await container.resolve(JobScheduler).runToEnd(
      await session(container),
      'echo',
      { hello: 'world' },
      {
        onQueued: (stored) => (queued = stored.id),
        onOutput: (chunk) => chunks.push(chunk.text),
      },
    );
    expect(job).toMatchObject({ id: queued, taskDirName: 'echo', status: 'succeeded', exitCode: 0, attempts: 1 });
    expect(JSON.parse(job.output)).toEqual({ input: { hello: 'world' } });
    expect(chunks.join('')).toBe(job.output);
    expect(await resolve(container, JobQueue).list()).toHaveLength(1);
  });

  it('retries a failing attempt itself, holding the job so no worker elsewhere can take it', async () => {
    const { container } = workspace();
    const queue = resolve(container, JobQueue);
    let held: boolean | null = null;
    const running = container.resolve(JobScheduler).runToEnd(await session(container), 'flaky', {});
    const id = await waitFor(async () => (await queue.list())[0]?.id, 'the job row');
    await waitFor(async () => ((await queue.get(id)).status === 'queued' ? true : undefined), 'the held retry');
    held = (await queue.claim('a-worker-of-another-server')) === null;
    const job = await running;
    expect(held).toBe(true);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2, output: 'second try works\n' });
  });

  it("runs the first attempt in the caller's session, and a retry after its wait in a session of its own", async () => {
    const { container } = workspace();
    const caller = await session(container);
    const opened = vi.spyOn(container.resolve(SessionLoader), 'open');
    const echoed = await container.resolve(JobScheduler).runToEnd(caller, 'echo', { n: 1 });
    expect(echoed).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(opened).not.toHaveBeenCalled();
    const retried = await container.resolve(JobScheduler).runToEnd(caller, 'flaky', {});
    expect(retried).toMatchObject({ status: 'succeeded', attempts: 2, output: 'second try works\n' });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(opened.mock.calls[0]?.[0]).toMatchObject({ project: null, kinds: ['task', 'notification'] });
  });

  it("tells the task its job's own output folder, emptied for each attempt, and hands back where it is", async () => {
    const { container, home } = workspace();
    const job = await container.resolve(JobScheduler).runToEnd(await session(container), 'writer', {});
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(job.outputFolder).toBe(path.join(home, '.loadout', 'job-output', String(job.id)));
    // The failed first attempt's file is not handed over with the second's.
    expect(fs.readdirSync(job.outputFolder)).toEqual(['second.txt']);
    expect((fs.statSync(job.outputFolder).mode & 0o777).toString(8)).toBe('700');

    // Retention prunes the folders of jobs no longer stored, and keeps the others.
    const outputs = container.resolve(JobOutputFolders);
    fs.mkdirSync(outputs.folderOf(job.id + 1000));
    const queue = resolve(container, JobQueue);
    const stored = (jobId: number): Promise<boolean> =>
      queue.get(jobId).then(
        () => true,
        () => false,
      );
    expect(await outputs.removeGone(stored)).toBe(1);
    expect(fs.existsSync(job.outputFolder)).toBe(true);
    expect(fs.existsSync(outputs.folderOf(job.id + 1000))).toBe(false);
  });

  it('fails for good after the last attempt, with the task exit status and stderr', async () => {
    const { container } = workspace();
    const job = await container.resolve(JobScheduler).runToEnd(await session(container), 'broken', {});
    expect(job).toMatchObject({ status: 'failed', attempts: 2, exitCode: 2, stderr: 'bad\n', output: 'out\n', error: 'exit status 2' });
  });

  it('stops the whole process group when cancelled and records why, without a retry', async () => {
    const { container } = workspace();
    const abort = new AbortController();
    let pids: { pid: number; child: number } | null = null;
    const running = container.resolve(JobScheduler).runToEnd(
      await session(container),
      'sleeper',
      {},
      {
        signal: abort.signal,
        cancelReason: 'cancelled by the test',
        onOutput: (chunk) => {
          pids = JSON.parse(chunk.text) as { pid: number; child: number };
          abort.abort();
        },
      },
    );
    const job = await running;
    expect(job).toMatchObject({ status: 'failed', error: 'cancelled by the test', attempts: 1 });
    const seen = pids as { pid: number; child: number } | null;
    expect(seen).not.toBeNull();
    await waitFor(
      () => (!isProcessAlive(seen?.pid ?? 0) && !isProcessAlive(seen?.child ?? 0) ? true : undefined),
      'the process group to stop',
    );
  });

  it('refuses a task that is not in the session before storing anything', async () => {
    const { container } = workspace();
    await expect(container.resolve(JobScheduler).runToEnd(await session(container), 'nope', {})).rejects.toMatchObject({
      code: 'TASK_NOT_FOUND',
    });
    expect(await resolve(container, JobQueue).list()).toEqual([]);
  });
});

describe('JobScheduler.runToEnd with workers (the server)', () => {
  it('queues the job for the workers and returns it when they finish it', async () => {
    const { container } = workspace();
    await container.resolve(JobWorkers).start({ count: 1, pollMs: 50 });
    const job = await container.resolve(JobScheduler).runToEnd(await session(container), 'echo', { n: 1 });
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1 });
    const stored = await resolve(container, JobQueue).list();
    expect(stored).toHaveLength(1);
  });

  it("runs the first attempt in the caller's session while it is still current; a session that moved, and a retry, get one of their own", async () => {
    const { container } = workspace();
    await container.resolve(JobWorkers).start({ count: 1, pollMs: 50 });
    const caller = await session(container);
    const opened = vi.spyOn(container.resolve(SessionLoader), 'open');
    const scheduler = container.resolve(JobScheduler);
    let asked = 0;
    const current = async (): Promise<boolean> => {
      asked += 1;
      return true;
    };
    expect(await scheduler.runToEnd(caller, 'echo', { n: 1 }, { stillCurrent: current })).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
    expect(asked).toBe(1);
    expect(opened).not.toHaveBeenCalled();
    expect(await scheduler.runToEnd(caller, 'echo', { n: 2 }, { stillCurrent: async () => false })).toMatchObject({
      status: 'succeeded',
      attempts: 1,
    });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(opened.mock.calls[0]?.[0]).toMatchObject({ project: null, kinds: ['task', 'notification'] });
    const retried = await scheduler.runToEnd(caller, 'flaky', {}, { stillCurrent: current });
    expect(retried).toMatchObject({ status: 'succeeded', attempts: 2, output: 'second try works\n' });
    expect(asked).toBe(2);
    expect(opened).toHaveBeenCalledTimes(2);
  });

  it('cancels through the workers: the running task is stopped and the job fails with the reason', async () => {
    const { container } = workspace();
    await container.resolve(JobWorkers).start({ count: 1, pollMs: 50 });
    const abort = new AbortController();
    const job = await container.resolve(JobScheduler).runToEnd(
      await session(container),
      'sleeper',
      {},
      {
        signal: abort.signal,
        cancelReason: 'cancelled by the client',
        onOutput: () => abort.abort(),
      },
    );
    expect(job).toMatchObject({ status: 'failed', error: 'cancelled by the client' });
  });
});

describe('recovery and claimants', () => {
  it('leaves a job claimed by another live process alone, and settles one whose claimant died', async () => {
    const { container } = workspace();
    const queue = resolve(container, JobQueue);
    const alive = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(alive.pid as number);
    await waitFor(() => processStartTime(alive.pid as number) ?? undefined, 'the helper process');
    const liveClaimant = `x@${alive.pid}:${processStartTime(alive.pid as number)}/inline`;
    const dead = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((done) => dead.once('exit', done));
    const deadClaimant = `y@${dead.pid}:1/inline`;

    const live = await queue.enqueueClaimed({ taskDirName: 'echo', project: null, maxAttempts: 1 }, liveClaimant);
    const orphan = await queue.enqueueClaimed({ taskDirName: 'echo', project: null, maxAttempts: 2 }, deadClaimant);
    const heldForLive = await queue.enqueueClaimed({ taskDirName: 'echo', project: null, maxAttempts: 2 }, liveClaimant);
    await queue.finish(
      heldForLive.id,
      liveClaimant,
      { succeeded: false, exitCode: 1, output: '', stderr: '', error: 'x', retryable: true },
      0,
      { holdRetry: true },
    );
    const heldForDead = await queue.enqueueClaimed({ taskDirName: 'echo', project: null, maxAttempts: 2 }, deadClaimant);
    await queue.finish(
      heldForDead.id,
      deadClaimant,
      { succeeded: false, exitCode: 1, output: '', stderr: '', error: 'x', retryable: true },
      0,
      { holdRetry: true },
    );

    const settled = await container.resolve(JobWorkers).recover();
    expect(settled.map((job) => job.id)).toEqual([orphan.id]);
    expect((await queue.get(live.id)).status).toBe('running');
    expect(await queue.get(orphan.id)).toMatchObject({ status: 'queued', error: 'server stopped while running; queued again' });
    expect((await queue.listHeld()).map((job) => job.id)).toEqual([heldForLive.id]);
    expect(await queue.claimById(heldForLive.id, 'someone-else')).toBeNull();
    expect(await queue.claimById(heldForLive.id, liveClaimant)).toMatchObject({ status: 'running', attempts: 2 });
  });

  it('cancels a job that has not started, and only such a job', async () => {
    const { container } = workspace();
    const queue = resolve(container, JobQueue);
    const waiting = await queue.enqueue({ taskDirName: 'echo', project: null, maxAttempts: 1 });
    expect(await queue.cancelPending(waiting.id, 'no longer wanted')).toMatchObject({ status: 'failed', error: 'no longer wanted' });
    expect(await queue.cancelPending(waiting.id, 'again')).toBeNull();
    await expect(queue.cancelPending(9999, 'x')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
  });
});
