import { type Database, openDatabase } from '@loadout/db';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JobOutcome, outputAsInput, SqliteJobQueue } from '../../src/JobQueue.js';
import { jobsMigrations } from '../../src/jobsMigrations.js';

// Item 11 of the hardening issue: job rows were never pruned and every listing carried every
// output. Retention keeps the newest finished jobs (and only recent ones); a pipeline goes whole.

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

const MEBIBYTE = 'x'.repeat(1024 * 1024);
const done = (output: string): JobOutcome => ({ succeeded: true, exitCode: 0, output, stderr: '', error: null, retryable: true });

/** Runs the next queued job to success with `output`, as a worker would. */
function runNext(output = 'ok'): number {
  const job = queue.claim('w');
  if (job === null) throw new Error('nothing queued');
  queue.finish(job.id, 'w', done(output), 0);
  return job.id;
}

const count = (): number => (db.prepare('SELECT COUNT(*) AS n FROM pipeline_jobs').get() as { n: number }).n;

describe('11 job retention', () => {
  it('11.11 keeps the newest finished jobs, never a queued or running one, and lists without outputs', () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      queue.enqueue({ taskDirName: i % 2 === 0 ? 'even' : 'odd', project: null, input: { i }, maxAttempts: 1 });
      ids.push(runNext(MEBIBYTE));
    }
    const waiting = queue.enqueue({ taskDirName: 'later', project: null, maxAttempts: 1 });
    queue.enqueue({ taskDirName: 'busy', project: null, maxAttempts: 1 });

    // A page of the list carries no output, input or stderr: 30 MiB of output stay in the database.
    const page = queue.list({ limit: 10 });
    expect(page.map((job) => job.id)).toEqual([waiting.id + 1, waiting.id, ...ids.slice(-8).reverse()]);
    expect(JSON.stringify(page).length).toBeLessThan(10_000);
    for (const job of page) expect(Object.keys(job)).not.toEqual(expect.arrayContaining(['output']));
    expect(queue.list({ limit: 5, before: ids[10] as number }).map((job) => job.id)).toEqual(ids.slice(5, 10).reverse());
    expect(queue.list({ task: 'odd', limit: 100 }).every((job) => job.taskDirName === 'odd')).toBe(true);
    expect(queue.get(ids[29] as number).output).toBe(MEBIBYTE);

    queue.claim('w'); // "later" is now running
    expect(queue.prune({ keepJobs: 10, keepDays: 365 })).toBe(20);
    expect(queue.list({ limit: 100 }).map((job) => job.id)).toEqual([waiting.id + 1, waiting.id, ...ids.slice(-10).reverse()]);
    expect(queue.prune({ keepJobs: 10, keepDays: 365 })).toBe(0);
  });

  it('11.11 forgets jobs that finished before the retention period, and a pipeline only as a whole', () => {
    queue.enqueue({ taskDirName: 'old', project: null, maxAttempts: 1 });
    const old = runNext();
    const pipeline = queue.enqueuePipeline(null, [
      { taskDirName: 'one', hasInput: true, input: {}, maxAttempts: 1 },
      { taskDirName: 'two', hasInput: false, maxAttempts: 1 },
    ]);
    runNext(); // step one finished; step two is queued
    const inTenDays = Date.now() + 10 * 24 * 60 * 60 * 1000;
    expect(queue.prune({ keepJobs: 1000, keepDays: 7 }, inTenDays)).toBe(1);
    expect(() => queue.get(old)).toThrow(/no job/);
    // Half a pipeline is never pruned: its first step waits for the second to finish too.
    expect(queue.getPipeline(pipeline.id).jobs).toHaveLength(2);
    runNext();
    expect(queue.prune({ keepJobs: 1000, keepDays: 7 }, inTenDays)).toBe(2);
    expect(() => queue.getPipeline(pipeline.id)).toThrow(/no pipeline/);
    expect(count()).toBe(0);
  });

  it('22 a step whose output nests too deep hands it on as text', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect(outputAsInput(deep)).toBe(deep);
    expect(outputAsInput('{"a":[1]}')).toEqual({ a: [1] });
  });
});
