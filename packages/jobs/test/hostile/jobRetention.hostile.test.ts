import { backendSkipReason, sqlBackends, type TestSqlDatabase } from '@loadout/db/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JobOutcome, outputAsInput, SqlJobQueue } from '../../src/JobQueue.js';
import { jobsMigrations, jobsPostgresMigrations } from '../../src/jobsMigrations.js';

// Item 11 of the hardening issue: job rows were never pruned and every listing carried every
// output. Retention keeps the newest finished jobs (and only recent ones); a pipeline goes whole.
// Run on every engine the queue has.

const MEBIBYTE = 'x'.repeat(1024 * 1024);
const done = (output: string): JobOutcome => ({ succeeded: true, exitCode: 0, output, stderr: '', error: null, retryable: true });

describe.each(sqlBackends)('11 job retention on $name', (backend) => {
  const skip = backendSkipReason(backend);
  let opened: TestSqlDatabase;
  let queue: SqlJobQueue;
  beforeEach(async () => {
    if (skip !== null) return;
    opened = await backend.open(jobsMigrations, jobsPostgresMigrations);
    queue = new SqlJobQueue(opened.db, { ms: 30_000 });
  });
  afterEach(async () => {
    if (skip !== null) return;
    await opened.close();
    removeTestdirs();
  });

  /** Runs the next queued job to success with `output`, as a worker would. */
  async function runNext(output = 'ok'): Promise<number> {
    const job = await queue.claim('w');
    if (job === null) throw new Error('nothing queued');
    await queue.finish(job.id, 'w', done(output), 0);
    return job.id;
  }

  const count = async (): Promise<number> => (await opened.db.queryOne<{ n: number }>('SELECT COUNT(*) AS n FROM pipeline_jobs'))?.n ?? -1;

  it.skipIf(skip !== null)('11.11 keeps the newest finished jobs, never a queued or running one, and lists without outputs', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      await queue.enqueue({ taskDirName: i % 2 === 0 ? 'even' : 'odd', project: null, input: { i }, maxAttempts: 1 });
      ids.push(await runNext(MEBIBYTE));
    }
    const waiting = await queue.enqueue({ taskDirName: 'later', project: null, maxAttempts: 1 });
    await queue.enqueue({ taskDirName: 'busy', project: null, maxAttempts: 1 });

    // A page of the list carries no output, input or stderr: 30 MiB of output stay in the database.
    const page = await queue.list({ limit: 10 });
    expect(page.map((job) => job.id)).toEqual([waiting.id + 1, waiting.id, ...ids.slice(-8).reverse()]);
    expect(JSON.stringify(page).length).toBeLessThan(10_000);
    for (const job of page) expect(Object.keys(job)).not.toEqual(expect.arrayContaining(['output']));
    expect((await queue.list({ limit: 5, before: ids[10] as number })).map((job) => job.id)).toEqual(ids.slice(5, 10).reverse());
    expect((await queue.list({ task: 'odd', limit: 100 })).every((job) => job.taskDirName === 'odd')).toBe(true);
    expect((await queue.get(ids[29] as number)).output).toBe(MEBIBYTE);

    await queue.claim('w'); // "later" is now running
    expect(await queue.prune({ keepJobs: 10, keepDays: 365 })).toBe(20);
    expect((await queue.list({ limit: 100 })).map((job) => job.id)).toEqual([waiting.id + 1, waiting.id, ...ids.slice(-10).reverse()]);
    expect(await queue.prune({ keepJobs: 10, keepDays: 365 })).toBe(0);
  });

  it.skipIf(skip !== null)('11.11 forgets jobs that finished before the retention period, and a pipeline only as a whole', async () => {
    await queue.enqueue({ taskDirName: 'old', project: null, maxAttempts: 1 });
    const old = await runNext();
    const pipeline = await queue.enqueuePipeline(null, [
      { taskDirName: 'one', hasInput: true, input: {}, maxAttempts: 1 },
      { taskDirName: 'two', hasInput: false, maxAttempts: 1 },
    ]);
    await runNext(); // step one finished; step two is queued
    const inTenDays = Date.now() + 10 * 24 * 60 * 60 * 1000;
    expect(await queue.prune({ keepJobs: 1000, keepDays: 7 }, inTenDays)).toBe(1);
    await expect(queue.get(old)).rejects.toThrow(/no job/);
    // Half a pipeline is never pruned: its first step waits for the second to finish too.
    expect((await queue.getPipeline(pipeline.id)).jobs).toHaveLength(2);
    await runNext();
    expect(await queue.prune({ keepJobs: 1000, keepDays: 7 }, inTenDays)).toBe(2);
    await expect(queue.getPipeline(pipeline.id)).rejects.toThrow(/no pipeline/);
    expect(await count()).toBe(0);
  });
});

describe('22 pipeline output', () => {
  it('22 a step whose output nests too deep hands it on as text', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect(outputAsInput(deep)).toBe(deep);
    expect(outputAsInput('{"a":[1]}')).toEqual({ a: [1] });
  });
});
