import { backendSkipReason, sqlBackends, type TestSqlDatabase } from '@loadout/db/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JobOutcome, leaseTiming, outputAsInput, SqlJobQueue } from './JobQueue.js';
import { jobsMigrations, jobsPostgresMigrations } from './jobsMigrations.js';

const succeeded = (output: string): JobOutcome => ({ succeeded: true, exitCode: 0, output, stderr: '', error: null, retryable: true });
const failed: JobOutcome = { succeeded: false, exitCode: 1, output: '', stderr: 'boom', error: 'exit status 1', retryable: true };
const LEASE_MS = 30_000;
const GRACE_MS = leaseTiming({ ms: LEASE_MS }).takeoverGraceMs;

// The job queue's contract, run on every engine: the same tests, SQLite and PostgreSQL.
describe.each(sqlBackends)('JobQueue on $name', (backend) => {
  const skip = backendSkipReason(backend);
  let opened: TestSqlDatabase;
  let queue: SqlJobQueue;

  beforeEach(async () => {
    if (skip !== null) return;
    opened = await backend.open(jobsMigrations, jobsPostgresMigrations);
    queue = new SqlJobQueue(opened.db, { ms: LEASE_MS });
  });
  afterEach(async () => {
    if (skip !== null) return;
    await opened.close();
    removeTestdirs();
  });

  it.skipIf(skip !== null)('hands each queued job to exactly one claim, oldest first, and counts the attempt', async () => {
    const first = await queue.enqueue({ taskDirName: 'a', project: null, input: { n: 1 }, maxAttempts: 1 });
    const second = await queue.enqueue({ taskDirName: 'b', project: '/p', maxAttempts: 1 });
    expect(first).toMatchObject({ status: 'queued', input: { n: 1 }, attempts: 0 });
    expect(second.input).toEqual({});
    expect(typeof first.id).toBe('number');

    const claimedA = await queue.claim('w1');
    const claimedB = await queue.claim('w2');
    expect(claimedA).toMatchObject({ id: first.id, status: 'running', attempts: 1 });
    expect(claimedB).toMatchObject({ id: second.id, status: 'running', project: '/p' });
    expect(await queue.claim('w1')).toBeNull();
  });

  it.skipIf(skip !== null)('keeps where each job was started, its pipeline steps too, and reads an unknown origin as null', async () => {
    const fromHttp = await queue.enqueue({ taskDirName: 'a', project: null, origin: 'http', maxAttempts: 1 });
    const claimed = await queue.enqueueClaimed({ taskDirName: 'b', project: null, origin: 'mcp', maxAttempts: 1 }, 'me');
    const unknown = await queue.enqueue({ taskDirName: 'c', project: null, maxAttempts: 1 });
    const pipeline = await queue.enqueuePipeline(
      null,
      [
        { taskDirName: 'd', hasInput: true, input: {}, maxAttempts: 1 },
        { taskDirName: 'e', hasInput: false, maxAttempts: 1 },
      ],
      'schedule',
    );
    expect([fromHttp.origin, claimed.origin, unknown.origin]).toEqual(['http', 'mcp', null]);
    expect(pipeline.jobs.map((job) => job.origin)).toEqual(['schedule', 'schedule']);
    expect((await queue.get(fromHttp.id)).origin).toBe('http');
    expect((await queue.list()).map((job) => [job.taskDirName, job.origin])).toEqual([
      ['e', 'schedule'],
      ['d', 'schedule'],
      ['c', null],
      ['b', 'mcp'],
      ['a', 'http'],
    ]);
  });

  it.skipIf(skip !== null)('claims each job exactly once when several connections claim at the same time', async () => {
    const others = [await opened.another(), await opened.another()].map((db) => new SqlJobQueue(db, { ms: LEASE_MS }));
    for (let i = 0; i < 60; i += 1) await queue.enqueue({ taskDirName: `t${i}`, project: null, maxAttempts: 1 });
    const seen: number[] = [];
    await Promise.all(
      [queue, ...others].flatMap((claimer, index) =>
        [1, 2].map(async (worker) => {
          for (;;) {
            const job = await claimer.claim(`c${index}/${worker}`);
            if (job === null) return;
            seen.push(job.id);
          }
        }),
      ),
    );
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
  });

  it.skipIf(skip !== null)('queues a failed attempt again after the backoff while attempts remain, then fails it', async () => {
    const job = await queue.enqueue({ taskDirName: 'flaky', project: null, maxAttempts: 2 });
    await queue.claim('w');
    const retried = await queue.finish(job.id, 'w', failed, 60_000);
    expect(retried).toMatchObject({
      status: 'queued',
      attempts: 1,
      exitCode: 1,
      error: 'attempt 1 of 2 failed (exit status 1); trying again',
    });
    expect(await queue.claim('w')).toBeNull();
    expect(await queue.nextDueAt()).toBeGreaterThan(Date.now() + 50_000);

    const again = await queue.claim('w', Date.now() + 61_000);
    expect(again).toMatchObject({ id: job.id, attempts: 2 });
    expect(await queue.finish(job.id, 'w', failed, 60_000)).toMatchObject({ status: 'failed', error: 'exit status 1', stderr: 'boom' });
    expect(await queue.nextDueAt()).toBeNull();
  });

  it.skipIf(skip !== null)('fails at once when another attempt cannot help', async () => {
    const job = await queue.enqueue({ taskDirName: 'gone', project: null, maxAttempts: 5 });
    await queue.claim('w');
    const finished = await queue.finish(job.id, 'w', { ...failed, retryable: false, error: 'no task named "gone"' }, 0);
    expect(finished).toMatchObject({ status: 'failed', attempts: 1, error: 'no task named "gone"' });
  });

  it.skipIf(skip !== null)('lets only the worker that claimed a job finish it', async () => {
    const job = await queue.enqueue({ taskDirName: 'a', project: null, maxAttempts: 1 });
    await queue.claim('w1');
    expect(await queue.finish(job.id, 'w2', succeeded('x'), 0)).toBeNull();
    expect((await queue.get(job.id)).status).toBe('running');
  });

  it.skipIf(skip !== null)('hands a job whose lease ran out to another worker once, and fences the first worker out', async () => {
    const job = await queue.enqueue({ taskDirName: 'slow', project: null, maxAttempts: 1 });
    const start = Date.now();
    await queue.claim('dead', start);
    // While the lease lasts nobody else takes it, and a heartbeat renews it.
    expect(await queue.claim('b', start + LEASE_MS - 1000)).toBeNull();
    expect(await queue.heartbeat('dead', [job.id])).toEqual([]);
    expect(await queue.nextDueAt()).toBeGreaterThanOrEqual(Date.now() + LEASE_MS + GRACE_MS - 1000);
    // Run out, but within the grace its claimant still has to stop the task: nobody takes it yet.
    expect(await queue.claim('b', Date.now() + LEASE_MS + 1000)).toBeNull();

    const taken = await queue.claim('b', Date.now() + LEASE_MS + GRACE_MS + 1000);
    expect(taken).toMatchObject({ id: job.id, attempts: 2, status: 'running' });
    // The first worker can neither renew, release nor finish what is no longer its own.
    expect(await queue.heartbeat('dead', [job.id])).toEqual([job.id]);
    expect(await queue.releaseInterrupted(job.id, 'stopped', { claimant: 'dead' })).toMatchObject({ status: 'running', attempts: 2 });
    expect(await queue.finish(job.id, 'dead', succeeded('late'), 0)).toBeNull();
    expect(await queue.finish(job.id, 'b', succeeded('mine'), 0)).toMatchObject({ status: 'succeeded', output: 'mine', attempts: 2 });
  });

  it.skipIf(skip !== null)(
    'fails a job whose lease ran out again after its one extra start, and skips the rest of its pipeline',
    async () => {
      const pipeline = await queue.enqueuePipeline(null, [
        { taskDirName: 'crashy', hasInput: false, maxAttempts: 1 },
        { taskDirName: 'after', hasInput: false, maxAttempts: 1 },
      ]);
      const id = pipeline.jobs[0]?.id ?? 0;
      await queue.claim('a', Date.now());
      await queue.claim('b', Date.now() + LEASE_MS + GRACE_MS + 1000);
      expect(await queue.claim('c', Date.now() + 2 * (LEASE_MS + GRACE_MS) + 2000)).toBeNull();
      const after = await queue.getPipeline(pipeline.id);
      expect(after.jobs.map((job) => job.status)).toEqual(['failed', 'skipped']);
      expect(after.jobs[0]).toMatchObject({ id, attempts: 2, error: expect.stringContaining('lease ran out') });
    },
  );

  it.skipIf(skip !== null)('runs a pipeline step by step, handing output on as JSON when it is JSON and as text otherwise', async () => {
    const pipeline = await queue.enqueuePipeline('/p', [
      { taskDirName: 'one', hasInput: true, input: { start: true }, maxAttempts: 1 },
      { taskDirName: 'two', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'three', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'four', hasInput: true, input: null, maxAttempts: 1 },
    ]);
    expect(pipeline.status).toBe('queued');
    expect(pipeline.jobs.map((job) => job.status)).toEqual(['queued', 'waiting', 'waiting', 'waiting']);
    expect(pipeline.jobs[1]?.input).toBeUndefined();

    const one = await queue.claim('w');
    expect(one).toMatchObject({ taskDirName: 'one', input: { start: true } });
    expect(await queue.claim('w')).toBeNull();
    await queue.finish(one?.id ?? 0, 'w', succeeded('{"count": 2}\n'), 0);
    expect((await queue.getPipeline(pipeline.id)).status).toBe('running');

    const two = await queue.claim('w');
    expect(two).toMatchObject({ taskDirName: 'two', input: { count: 2 }, step: 1, pipelineId: pipeline.id });
    await queue.finish(two?.id ?? 0, 'w', succeeded('plain words\n'), 0);
    const three = await queue.claim('w');
    expect(three).toMatchObject({ taskDirName: 'three', input: 'plain words\n' });
    await queue.finish(three?.id ?? 0, 'w', succeeded(''), 0);
    const four = await queue.claim('w');
    expect(four).toMatchObject({ taskDirName: 'four', input: null });
    await queue.finish(four?.id ?? 0, 'w', succeeded('done'), 0);
    expect((await queue.getPipeline(pipeline.id)).status).toBe('succeeded');
  });

  it.skipIf(skip !== null)('fails a pipeline at a failed step and skips the rest', async () => {
    const pipeline = await queue.enqueuePipeline(null, [
      { taskDirName: 'one', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'two', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'three', hasInput: false, maxAttempts: 1 },
    ]);
    const one = await queue.claim('w');
    await queue.finish(one?.id ?? 0, 'w', succeeded('1'), 0);
    const two = await queue.claim('w');
    await queue.finish(two?.id ?? 0, 'w', failed, 0);
    const after = await queue.getPipeline(pipeline.id);
    expect(after.status).toBe('failed');
    expect(after.jobs.map((job) => job.status)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(after.jobs[2]?.error).toBe('skipped: step 2 (two) failed');
    expect(await queue.claim('w')).toBeNull();
  });

  it.skipIf(skip !== null)(
    'settles a job interrupted by a stopped server: again while attempts remain, else failed with the reason',
    async () => {
      const retryable = await queue.enqueue({ taskDirName: 'a', project: null, maxAttempts: 2 });
      const once = await queue.enqueue({ taskDirName: 'b', project: null, maxAttempts: 1 });
      await queue.claim('w');
      await queue.claim('w');
      await queue.recordProcess(retryable.id, 'w', 4242, '123');
      expect((await queue.listRunning()).map((job) => [job.id, job.process])).toEqual([
        [retryable.id, { pid: 4242, start: '123' }],
        [once.id, null],
      ]);
      expect(await queue.releaseInterrupted(retryable.id, 'server stopped while running')).toMatchObject({
        status: 'queued',
        error: 'server stopped while running; queued again',
      });
      expect(await queue.releaseInterrupted(once.id, 'server stopped while running')).toMatchObject({
        status: 'failed',
        error: 'server stopped while running',
      });
      await queue.claim('w');
      expect(await queue.releaseInterrupted(retryable.id, 'could not stop it', { mayRetry: false })).toMatchObject({
        status: 'failed',
        attempts: 2,
      });
      expect(await queue.listRunning()).toEqual([]);
    },
  );

  it.skipIf(skip !== null)('holds a retry for its claimant: only claimById by that claimant takes it, until unheld', async () => {
    const job = await queue.enqueueClaimed({ taskDirName: 'mine', project: null, maxAttempts: 2 }, 'inline');
    expect(job).toMatchObject({ status: 'running', attempts: 1 });
    await queue.finish(job.id, 'inline', failed, 0, { holdRetry: true });
    expect(await queue.claim('w', Date.now() + 10)).toBeNull();
    expect((await queue.listHeld()).map((held) => [held.id, held.claimedBy])).toEqual([[job.id, 'inline']]);
    expect(await queue.claimById(job.id, 'other', Date.now() + 10)).toBeNull();
    expect(await queue.claimById(job.id, 'inline', Date.now() + 10)).toMatchObject({ id: job.id, attempts: 2 });
    await queue.releaseInterrupted(job.id, 'stopped', { mayRetry: false });
    expect(await queue.cancelPending(job.id, 'no')).toBeNull();
  });

  it.skipIf(skip !== null)('reports unknown jobs and pipelines as not found', async () => {
    await expect(queue.get(999)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND', category: 'not_found' });
    await expect(queue.getPipeline(999)).rejects.toMatchObject({ code: 'PIPELINE_NOT_FOUND' });
    await expect(queue.cancelPending(999, 'why')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
  });
});

describe('outputAsInput', () => {
  it('parses output as JSON for the next step when it is JSON', () => {
    expect(outputAsInput(' [1, 2]\n')).toEqual([1, 2]);
    expect(outputAsInput('"quoted"')).toBe('quoted');
    expect(outputAsInput('not json')).toBe('not json');
    expect(outputAsInput('')).toBe('');
  });
});
