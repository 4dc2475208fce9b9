import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '@loadout/jobs';
import { isProcessAlive } from '@loadout/files';
import { taskTree } from '@loadout/jobs/testing';
import { exited, runCliProcess, serve, stopServedProcesses } from './servedProcess.js';
import { sendRequest, workspaceTree } from './support.js';

afterEach(async () => {
  await stopServedProcesses();
  removeTestdirs();
});

/**
 * Appends `start PID` and, at the end, `end PID` to `markers.txt` in the project. On start it
 * looks for an earlier run that started, never ended and is still alive, and writes `overlap`
 * if there is one: the proof that two runs never overlapped. The first run sleeps long (it is the
 * one the test kills the server under); a later run is quick.
 */
const markers = `
import fs from 'node:fs';
const file = process.env.LOADOUT_PROJECT + '/markers.txt';
const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\\n').filter(Boolean) : [];
const alive = (pid) => {
  try {
    const stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch { return false; }
};
const ended = new Set(lines.filter((l) => l.startsWith('end ')).map((l) => l.slice(4)));
const open = lines.filter((l) => l.startsWith('start ')).map((l) => l.slice(6)).filter((pid) => !ended.has(pid) && alive(Number(pid)));
fs.appendFileSync(file, 'start ' + process.pid + '\\n' + (open.length > 0 ? 'overlap ' + open.join(',') + '\\n' : ''));
const first = !lines.some((l) => l.startsWith('start '));
await new Promise((done) => setTimeout(done, first ? 60000 : 300));
fs.appendFileSync(file, 'end ' + process.pid + '\\n');
process.stdout.write('finished');
`;

describe('loadout serve', () => {
  it('prints where it listens and where the token is, refuses a second server, and stops on SIGTERM', async () => {
    const home = testdir(workspaceTree());
    const served = await serve(home);
    const tokenFile = path.join(home, '.loadout', 'server-token');
    expect(served.description).toMatchObject({ url: `http://127.0.0.1:${served.port}`, token: { source: 'file', file: tokenFile } });
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect((await sendRequest(served.port, 'GET', '/api/health', { token: null })).body).toEqual({ ok: true });

    const second = await runCliProcess(home, ['serve', '--port', '0', '--json']);
    expect(second.code).toBe(1);
    expect(JSON.parse(second.stdout)).toMatchObject({ error: { code: 'SERVER_ALREADY_RUNNING' } });

    served.child.kill('SIGTERM');
    expect(await exited(served.child)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(home, '.loadout', 'server.lock'))).toBe(false);
  });

  it('takes the token from LOADOUT_TOKEN, never hands it to a task, and refuses a bad --port', async () => {
    const token = 'from-the-environment-0123456789';
    const home = testdir(
      workspaceTree({ env: taskTree({ name: 'Env', implementation: 'run.sh' }, { 'run.sh': 'cat >/dev/null\nenv\n' }) }),
    );
    const served = await serve(home, [], { LOADOUT_TOKEN: token });
    expect(served.description.token).toEqual({ source: 'env', variable: 'LOADOUT_TOKEN' });
    expect(fs.existsSync(path.join(home, '.loadout', 'server-token'))).toBe(false);
    const queued = await sendRequest(served.port, 'POST', '/api/tasks/env/runs', { body: {}, token });
    expect(queued.status).toBe(202);
    const id = (queued.body as { job: { id: number } }).job.id;
    let job: Job;
    do {
      job = (await sendRequest(served.port, 'GET', `/api/jobs/${id}`, { token })).body as Job;
    } while (job.status !== 'succeeded' && job.status !== 'failed');
    expect(job.status).toBe('succeeded');
    expect(job.output).toContain('LOADOUT_TASK_DIR=');
    expect(job.output).not.toContain(token);
    expect(job.output).not.toContain('LOADOUT_HOME');

    const bad = await runCliProcess(home, ['serve', '--port', 'eighty', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'USAGE' } });
  });

  it('4. a server killed while jobs run: after a restart each job ends, its task ran at most twice and never at once', async () => {
    const home = testdir(
      workspaceTree({
        'slow-retry': taskTree({ name: 'Slow, retried', implementation: 'run.mjs', retries: 1 }, { 'run.mjs': markers }),
        'slow-once': taskTree({ name: 'Slow, once', implementation: 'run.mjs' }, { 'run.mjs': markers }),
      }),
    );
    const retryProject = testdir();
    const onceProject = testdir();
    const markersOf = (project: string): string[] => {
      const file = path.join(project, 'markers.txt');
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    };

    const first = await serve(home);
    const submit = async (port: number, token: string, task: string, project: string): Promise<number> => {
      const answer = await sendRequest(port, 'POST', `/api/tasks/${task}/runs`, { body: { project }, token });
      expect(answer.status).toBe(202);
      return (answer.body as { job: { id: number } }).job.id;
    };
    const retryJob = await submit(first.port, first.token, 'slow-retry', retryProject);
    const onceJob = await submit(first.port, first.token, 'slow-once', onceProject);
    await expect.poll(() => markersOf(retryProject).length, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => markersOf(onceProject).length, { timeout: 15_000 }).toBe(1);

    first.child.kill('SIGKILL');
    await exited(first.child);
    const orphan = Number(markersOf(retryProject)[0]?.slice(6));
    const onceOrphan = Number(markersOf(onceProject)[0]?.slice(6));
    // The killed server's tasks run in their own process groups, yet die with it: its guardian
    // process stops them once the server is gone, so they never run on beside a retry.
    await expect.poll(() => isProcessAlive(orphan) || isProcessAlive(onceOrphan), { timeout: 10_000 }).toBe(false);

    const second = await serve(home);
    expect(second.description.recovered).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: retryJob, status: 'queued' }),
        expect.objectContaining({ id: onceJob, status: 'failed' }),
      ]),
    );
    expect(isProcessAlive(orphan)).toBe(false);
    expect(isProcessAlive(onceOrphan)).toBe(false);

    const read = async (id: number): Promise<Job> =>
      (await sendRequest(second.port, 'GET', `/api/jobs/${id}`, { token: second.token })).body as Job;
    await expect.poll(async () => (await read(retryJob)).status, { timeout: 15_000 }).toBe('succeeded');
    expect(await read(retryJob)).toMatchObject({ attempts: 2, output: 'finished' });
    expect(await read(onceJob)).toMatchObject({ status: 'failed', attempts: 1, error: 'server stopped while running' });

    const retried = markersOf(retryProject);
    expect(retried.filter((line) => line.startsWith('start '))).toHaveLength(2);
    expect(retried.filter((line) => line.startsWith('end '))).toHaveLength(1);
    expect(retried.some((line) => line.startsWith('overlap'))).toBe(false);
    expect(markersOf(onceProject)).toEqual([`start ${onceOrphan}`]);

    second.child.kill('SIGINT');
    expect(await exited(second.child)).toEqual({ code: 0, signal: null });
  }, 60_000);
});

describe('loadout tasks run', () => {
  it('runs a task with the same runner: output streams through, a failure exits 1', async () => {
    const home = testdir(workspaceTree());
    const ok = await runCliProcess(home, ['tasks', 'run', 'echo', '--input', '{"text":"hi"}']);
    expect(ok).toMatchObject({ code: 0, stdout: '{"input":{"text":"hi"}}\n' });

    const failed = await runCliProcess(home, ['tasks', 'run', 'fails']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('partial\n');
    expect(failed.stderr).toBe('it broke\nloadout: task fails failed: exit status 4\n');

    const json = await runCliProcess(home, ['tasks', 'run', 'fails', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      taskDirName: 'fails',
      status: 'failed',
      exitCode: 4,
      output: 'partial\n',
      stderr: 'it broke\n',
    });
  });

  it('refuses bad input, bad names and missing tasks with clear errors', async () => {
    const home = testdir(workspaceTree());
    const badInput = await runCliProcess(home, ['tasks', 'run', 'echo', '--input', '{nope', '--json']);
    expect(badInput.code).toBe(2);
    expect(JSON.parse(badInput.stdout)).toMatchObject({ error: { code: 'USAGE' } });
    const badName = await runCliProcess(home, ['tasks', 'run', '../echo', '--json']);
    expect(badName.code).toBe(1);
    expect(JSON.parse(badName.stdout)).toMatchObject({ error: { code: 'TASK_NAME_INVALID' } });
    const missing = await runCliProcess(home, ['tasks', 'run', 'nope', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });
  });
});
