import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { runNotificationCatalogue, taskTree } from '@loadout/jobs/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliProcess, serve, stopServedProcesses } from './servedProcess.js';
import { sendRequest } from './support.js';

// Issue 34: one input contract on every path (the declared schema refuses n=99 against maximum 20
// on the command line, over HTTP and in a pipeline, with nothing queued and nothing run), and a
// job that can be stopped (its process group killed) or cancelled before it runs.

afterEach(async () => {
  await stopServedProcesses();
  removeTestdirs();
});

/** Sleeps n seconds in a child process of its own (so stopping the group is what ends it), leaving a mark when it starts. */
const SLEEPER = `input=$(cat)
n=$(printf '%s' "$input" | sed -E 's/.*"n":([0-9]+).*/\\1/')
echo started >> "$HOME/ran-$n"
sleep "$n" &
echo $! > "$HOME/child-$n"
wait
`;

function workspace(): string {
  return testdir({
    capabilities: {
      notifications: { 'loadout-runs.json': runNotificationCatalogue },
      tasks: {
        count: taskTree(
          {
            name: 'Count',
            implementation: 'run.sh',
            input: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['n'] },
          },
          { 'run.sh': SLEEPER },
        ),
      },
    },
    plugins: {},
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

describe('a task input over its declared maximum', () => {
  it('is refused by `tasks run` (exit 1, coded) and nothing runs', () => {
    const home = workspace();
    const run = runCli(home, ['tasks', 'run', 'count', '--input', '{"n":99}', '--json']);
    expect(run.status).toBe(1);
    expect(run.json<{ error: { code: string; message: string } }>().error).toMatchObject({
      code: 'TASK_INPUT_INVALID',
      message: expect.stringContaining('n'),
    });
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(home, 'ran-99'))).toBe(false);
    // Within the schema it runs.
    expect(runCli(home, ['tasks', 'run', 'count', '--input', '{"n":1}', '--json']).status).toBe(0);
    expect(fs.existsSync(path.join(home, 'ran-1'))).toBe(true);
  });

  it('is a 400 over HTTP, for a run and a pipeline step, and queues nothing', async () => {
    const home = workspace();
    const served = await serve(home);
    const auth = { token: served.token };
    const run = await sendRequest(served.port, 'POST', '/api/tasks/count/runs', { ...auth, body: { input: { n: 99 } } });
    expect([run.status, run.body]).toEqual([
      400,
      { error: { code: 'TASK_INPUT_INVALID', message: expect.stringContaining('n: 99 is greater than 20') } },
    ]);
    const missing = await sendRequest(served.port, 'POST', '/api/tasks/count/runs', { ...auth, body: {} });
    expect(missing.status).toBe(400);
    const pipeline = await sendRequest(served.port, 'POST', '/api/pipelines', {
      ...auth,
      body: { steps: [{ task: 'count', input: { n: 99 } }] },
    });
    expect(pipeline.status).toBe(400);
    const jobs = await sendRequest(served.port, 'GET', '/api/jobs', auth);
    expect(jobs.body).toEqual([]);
    expect(fs.existsSync(path.join(home, 'ran-99'))).toBe(false);
  });
});

describe('cancelling a job', () => {
  it('stops a running job through `loadout jobs cancel` (its process group killed) and ends a queued one before it runs', async () => {
    const home = workspace();
    const served = await serve(home, ['--workers', '1']);
    const auth = { token: served.token };
    const first = await sendRequest(served.port, 'POST', '/api/tasks/count/runs', { ...auth, body: { input: { n: 20 } } });
    const second = await sendRequest(served.port, 'POST', '/api/tasks/count/runs', { ...auth, body: { input: { n: 19 } } });
    const firstId = (first.body as { job: { id: number } }).job.id;
    const secondId = (second.body as { job: { id: number } }).job.id;
    const job = (id: number) => async () =>
      (await sendRequest(served.port, 'GET', `/api/jobs/${id}`, auth)).body as { status: string; error: string | null };
    expect((await until(job(firstId), (j) => j.status === 'running')).status).toBe('running');
    const childFile = path.join(home, 'child-20');
    await until(async () => fs.existsSync(childFile), Boolean);
    const child = Number(fs.readFileSync(childFile, 'utf8'));
    expect(alive(child)).toBe(true);

    // The queued one first, over HTTP: it never runs.
    const queued = await sendRequest(served.port, 'POST', `/api/jobs/${secondId}/cancel`, auth);
    expect(queued.status).toBe(202);
    expect(await job(secondId)()).toMatchObject({ status: 'failed', error: 'cancelled by the owner' });

    // The running one from the command line, which finds the server through the data folder.
    const started = Date.now();
    const cancel = await runCliProcess(home, ['jobs', 'cancel', String(firstId)]);
    expect(cancel).toMatchObject({ code: 0, stderr: '' });
    expect(cancel.stdout).toContain(`job ${firstId}`);
    const ended = await until(job(firstId), (j) => j.status !== 'running');
    expect(ended).toMatchObject({ status: 'failed', error: 'cancelled by the owner' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(
      await until(
        async () => alive(child),
        (up) => !up,
      ),
    ).toBe(false);
    expect(fs.existsSync(path.join(home, 'ran-19'))).toBe(false);

    // An ended job cannot be cancelled: 409 over HTTP, exit 1 on the command line, nothing changed.
    const again = await sendRequest(served.port, 'POST', `/api/jobs/${firstId}/cancel`, auth);
    expect([again.status, (again.body as { error: { code: string } }).error.code]).toEqual([409, 'JOB_NOT_CANCELLABLE']);
    const cli = await runCliProcess(home, ['jobs', 'cancel', String(firstId)]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/^loadout: job \d+ has already ended/);
    expect((await sendRequest(served.port, 'POST', '/api/jobs/999/cancel', auth)).status).toBe(404);
  });
});
