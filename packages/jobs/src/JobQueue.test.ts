import { type Database, openDatabase } from '@loadout/db';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JobOutcome, outputAsInput, SqliteJobQueue } from './JobQueue.js';
import { jobsMigrations } from './jobsMigrations.js';

let db: Database;
let queue: SqliteJobQueue;

beforeEach(() => {
  db = openDatabase(testdir(), jobsMigrations);
  queue = new SqliteJobQueue(db);
});
afterEach(() => {
  db.close();
  removeTestdirs();
});

const succeeded = (output: string): JobOutcome => ({ succeeded: true, exitCode: 0, output, stderr: '', error: null, retryable: true });
const failed: JobOutcome = { succeeded: false, exitCode: 1, output: '', stderr: 'boom', error: 'exit status 1', retryable: true };

describe('SqliteJobQueue', () => {
  it('hands each queued job to exactly one claim, oldest first, and counts the attempt', () => {
    const first = queue.enqueue({ taskDirName: 'a', project: null, input: { n: 1 }, maxAttempts: 1 });
    const second = queue.enqueue({ taskDirName: 'b', project: '/p', maxAttempts: 1 });
    expect(first).toMatchObject({ status: 'queued', input: { n: 1 }, attempts: 0 });
    expect(second.input).toEqual({});

    const claimedA = queue.claim('w1');
    const claimedB = queue.claim('w2');
    expect(claimedA).toMatchObject({ id: first.id, status: 'running', attempts: 1 });
    expect(claimedB).toMatchObject({ id: second.id, status: 'running', project: '/p' });
    expect(queue.claim('w1')).toBeNull();
  });

  it('claims atomically across connections to the same file', () => {
    const dir = testdir();
    const a = openDatabase(dir, jobsMigrations);
    const b = openDatabase(dir, jobsMigrations);
    try {
      const queueA = new SqliteJobQueue(a);
      const queueB = new SqliteJobQueue(b);
      for (let i = 0; i < 40; i += 1) queueA.enqueue({ taskDirName: `t${i}`, project: null, maxAttempts: 1 });
      const seen: number[] = [];
      for (;;) {
        const fromA = queueA.claim('a');
        const fromB = queueB.claim('b');
        if (fromA !== null) seen.push(fromA.id);
        if (fromB !== null) seen.push(fromB.id);
        if (fromA === null && fromB === null) break;
      }
      expect(seen).toHaveLength(40);
      expect(new Set(seen).size).toBe(40);
    } finally {
      a.close();
      b.close();
    }
  });

  it('queues a failed attempt again after the backoff while attempts remain, then fails it', () => {
    const job = queue.enqueue({ taskDirName: 'flaky', project: null, maxAttempts: 2 });
    queue.claim('w');
    const retried = queue.finish(job.id, 'w', failed, 60_000);
    expect(retried).toMatchObject({ status: 'queued', attempts: 1, exitCode: 1, error: 'attempt 1 of 2 failed (exit status 1); trying again' });
    expect(queue.claim('w')).toBeNull();
    expect(queue.nextDueAt()).toBeGreaterThan(Date.now() + 50_000);

    const again = queue.claim('w', Date.now() + 61_000);
    expect(again).toMatchObject({ id: job.id, attempts: 2 });
    expect(queue.finish(job.id, 'w', failed, 60_000)).toMatchObject({ status: 'failed', error: 'exit status 1', stderr: 'boom' });
    expect(queue.nextDueAt()).toBeNull();
  });

  it('fails at once when another attempt cannot help', () => {
    const job = queue.enqueue({ taskDirName: 'gone', project: null, maxAttempts: 5 });
    queue.claim('w');
    const finished = queue.finish(job.id, 'w', { ...failed, retryable: false, error: 'no task named "gone"' }, 0);
    expect(finished).toMatchObject({ status: 'failed', attempts: 1, error: 'no task named "gone"' });
  });

  it('lets only the worker that claimed a job finish it', () => {
    const job = queue.enqueue({ taskDirName: 'a', project: null, maxAttempts: 1 });
    queue.claim('w1');
    expect(queue.finish(job.id, 'w2', succeeded('x'), 0)).toBeNull();
    expect(queue.get(job.id).status).toBe('running');
  });

  it('runs a pipeline step by step, handing output on as JSON when it is JSON and as text otherwise', () => {
    const pipeline = queue.enqueuePipeline('/p', [
      { taskDirName: 'one', hasInput: true, input: { start: true }, maxAttempts: 1 },
      { taskDirName: 'two', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'three', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'four', hasInput: true, input: null, maxAttempts: 1 },
    ]);
    expect(pipeline.status).toBe('queued');
    expect(pipeline.jobs.map((job) => job.status)).toEqual(['queued', 'waiting', 'waiting', 'waiting']);
    expect(pipeline.jobs[1]?.input).toBeUndefined();

    const one = queue.claim('w');
    expect(one).toMatchObject({ taskDirName: 'one', input: { start: true } });
    expect(queue.claim('w')).toBeNull();
    queue.finish(one?.id ?? 0, 'w', succeeded('{"count": 2}\n'), 0);
    expect(queue.getPipeline(pipeline.id).status).toBe('running');

    const two = queue.claim('w');
    expect(two).toMatchObject({ taskDirName: 'two', input: { count: 2 }, step: 1, pipelineId: pipeline.id });
    queue.finish(two?.id ?? 0, 'w', succeeded('plain words\n'), 0);
    const three = queue.claim('w');
    expect(three).toMatchObject({ taskDirName: 'three', input: 'plain words\n' });
    queue.finish(three?.id ?? 0, 'w', succeeded(''), 0);
    const four = queue.claim('w');
    expect(four).toMatchObject({ taskDirName: 'four', input: null });
    queue.finish(four?.id ?? 0, 'w', succeeded('done'), 0);
    expect(queue.getPipeline(pipeline.id).status).toBe('succeeded');
  });

  it('fails a pipeline at a failed step and skips the rest', () => {
    const pipeline = queue.enqueuePipeline(null, [
      { taskDirName: 'one', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'two', hasInput: false, maxAttempts: 1 },
      { taskDirName: 'three', hasInput: false, maxAttempts: 1 },
    ]);
    const one = queue.claim('w');
    queue.finish(one?.id ?? 0, 'w', succeeded('1'), 0);
    const two = queue.claim('w');
    queue.finish(two?.id ?? 0, 'w', failed, 0);
    const after = queue.getPipeline(pipeline.id);
    expect(after.status).toBe('failed');
    expect(after.jobs.map((job) => job.status)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(after.jobs[2]?.error).toBe('skipped: step 2 (two) failed');
    expect(queue.claim('w')).toBeNull();
  });

  it('settles a job interrupted by a stopped server: again while attempts remain, else failed with the reason', () => {
    const retryable = queue.enqueue({ taskDirName: 'a', project: null, maxAttempts: 2 });
    const once = queue.enqueue({ taskDirName: 'b', project: null, maxAttempts: 1 });
    queue.claim('w');
    queue.claim('w');
    queue.recordProcess(retryable.id, 'w', 4242, '123');
    expect(queue.listRunning().map((job) => [job.id, job.process])).toEqual([
      [retryable.id, { pid: 4242, start: '123' }],
      [once.id, null],
    ]);
    expect(queue.releaseInterrupted(retryable.id, 'server stopped while running')).toMatchObject({
      status: 'queued',
      error: 'server stopped while running; queued again',
    });
    expect(queue.releaseInterrupted(once.id, 'server stopped while running')).toMatchObject({ status: 'failed', error: 'server stopped while running' });
    queue.claim('w');
    expect(queue.releaseInterrupted(retryable.id, 'could not stop it', false)).toMatchObject({ status: 'failed', attempts: 2 });
    expect(queue.listRunning()).toEqual([]);
  });

  it('reports unknown jobs and pipelines as not found', () => {
    expect(() => queue.get(999)).toThrow(expect.objectContaining({ code: 'JOB_NOT_FOUND', category: 'not_found' }));
    expect(() => queue.getPipeline(999)).toThrow(expect.objectContaining({ code: 'PIPELINE_NOT_FOUND' }));
  });

  it('parses output as JSON for the next step when it is JSON', () => {
    expect(outputAsInput(' [1, 2]\n')).toEqual([1, 2]);
    expect(outputAsInput('"quoted"')).toBe('quoted');
    expect(outputAsInput('not json')).toBe('not json');
    expect(outputAsInput('')).toBe('');
  });
});
