import { Database, writeTransaction } from '@loadout/db';
import { exceedsJsonDepth, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { JobNotFoundError, PipelineNotFoundError } from './JobErrors.js';

/**
 * `waiting`: a pipeline step whose previous step has not succeeded yet. `skipped`: a pipeline step
 * after a failed one. A job is in exactly one of these states; only `queued` jobs are claimed.
 */
export type JobStatus = 'waiting' | 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';

/** A job as the API shows it. */
export interface Job {
  readonly id: number;
  readonly taskDirName: string;
  /** The project's real path, or null for a run without a project. */
  readonly project: string | null;
  /** The JSON the task gets on stdin; undefined while a step waits for the previous output. */
  readonly input: unknown;
  readonly status: JobStatus;
  readonly exitCode: number | null;
  /** What the task printed on stdout (bounded). */
  readonly output: string;
  readonly stderr: string;
  /** Why the job failed or was queued again, when that is not just the task's exit status. */
  readonly error: string | null;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly pipelineId: number | null;
  readonly step: number | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

/**
 * A job as a listing shows it: everything but its input and what it printed, which can weigh
 * megabytes each. Read one job for those.
 */
export type JobSummary = Omit<Job, 'input' | 'output' | 'stderr'>;

/** Which jobs a listing shows, newest first. */
export interface JobListOptions {
  /** At most this many (1-500, default 50). */
  readonly limit?: number;
  readonly status?: JobStatus;
  /** Only runs of this task (its `dirName`). */
  readonly task?: string;
  /** Only jobs older than this id: the next page after a page whose last job had this id. */
  readonly before?: number;
}

/** How long finished jobs are kept. Queued, waiting and running jobs are never pruned. */
export interface JobRetention {
  /** The newest this many finished jobs are kept. */
  readonly keepJobs: number;
  /** A job that finished more than this many days ago goes, even among the newest. */
  readonly keepDays: number;
}
export const JobRetention = token<JobRetention>('jobs.retention');

export const DEFAULT_JOB_RETENTION: JobRetention = { keepJobs: 1000, keepDays: 30 };

/** A running job with the process it started, for recovery after a crash. */
export interface RunningJob extends Job {
  readonly claimedBy: string | null;
  readonly process: { readonly pid: number; readonly start: string | null } | null;
}

export interface NewJob {
  readonly taskDirName: string;
  readonly project: string | null;
  /** Stored as JSON; undefined becomes `{}`. */
  readonly input?: unknown;
  /** 1 + the task's declared retries. */
  readonly maxAttempts: number;
}

export interface NewPipelineStep {
  readonly taskDirName: string;
  /** Whether the step has its own input; a step without one gets the previous step's output. */
  readonly hasInput: boolean;
  readonly input?: unknown;
  readonly maxAttempts: number;
}

export type PipelineStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface Pipeline {
  readonly id: number;
  readonly project: string | null;
  readonly status: PipelineStatus;
  readonly createdAt: string;
  readonly jobs: readonly Job[];
}

/** How one attempt ended. */
export interface JobOutcome {
  readonly succeeded: boolean;
  readonly exitCode: number | null;
  readonly output: string;
  readonly stderr: string;
  readonly error: string | null;
  /** False when another attempt cannot help (the task is gone, its implementation unrunnable). */
  readonly retryable: boolean;
}

/** How {@link JobQueue.finish} treats a failed attempt that will be tried again. */
export interface FinishOptions {
  /**
   * Keep the job for the same claimant: it is queued again, but only {@link JobQueue.claimById}
   * by that claimant takes it (a process running its own job retries it itself).
   */
  readonly holdRetry?: boolean;
}

/**
 * The job queue in the database. Every state change is one `BEGIN IMMEDIATE` transaction, so a
 * claim is atomic across workers and processes, and a job is claimed by exactly one of them.
 * A queued job held for a claimant (see {@link FinishOptions.holdRetry}) is never taken by
 * {@link JobQueue.claim}.
 */
export interface JobQueue {
  enqueue(job: NewJob): Job;
  /**
   * Stores a job that is already running for `claimant` (its first attempt counted): for a process
   * that runs the job it asked for itself, so no worker can take it first.
   */
  enqueueClaimed(job: NewJob, claimant: string): Job;
  /** Stores a pipeline and its steps; the first step is queued, the others wait. */
  enqueuePipeline(project: string | null, steps: readonly NewPipelineStep[]): Pipeline;
  /** Takes the oldest queued job that is due, marks it running and counts the attempt. */
  claim(workerId: string, now?: number): Job | null;
  /** Takes one queued job by id when it is due and not held for another claimant; null otherwise. */
  claimById(id: number, claimant: string, now?: number): Job | null;
  /** Remembers the process a running job started, so a later server can stop it after a crash. */
  recordProcess(id: number, workerId: string, pid: number, start: string | null): void;
  heartbeat(workerId: string, ids: readonly number[]): void;
  /**
   * Ends an attempt. A failed attempt is queued again after `retryDelayMs` while attempts remain;
   * a finished pipeline step queues the next step (handing it this output) or skips the rest.
   * Returns null when the job is no longer this worker's (it was recovered meanwhile).
   */
  finish(id: number, workerId: string, outcome: JobOutcome, retryDelayMs: number, options?: FinishOptions): Job | null;
  /**
   * Ends a job that has not started running (queued, held for a retry, or a waiting pipeline
   * step): failed with `reason`, the rest of its pipeline skipped. Null when it is running or
   * already finished: a running job is stopped by whoever runs it.
   */
  cancelPending(id: number, reason: string): Job | null;
  /** Every job marked running, with its process. */
  listRunning(): RunningJob[];
  /** Every queued job held for a claimant (a retry its process will run itself). */
  listHeld(): RunningJob[];
  /** Lets any worker take a held job: its claimant is gone. */
  unhold(id: number): Job;
  /**
   * Ends a running job whose process was stopped from outside the attempt (the server stopped):
   * queued again while attempts remain and `mayRetry`, else failed with `reason`.
   */
  releaseInterrupted(id: number, reason: string, mayRetry?: boolean): Job;
  get(id: number): Job;
  getPipeline(id: number): Pipeline;
  /** The newest jobs first, without their input or output. */
  list(options?: JobListOptions): JobSummary[];
  /**
   * Deletes finished jobs beyond the newest `keepJobs` and those that finished more than
   * `keepDays` before `now`. A pipeline's jobs go only all together, once every one of them may go.
   * Returns how many jobs were deleted.
   */
  prune(retention: JobRetention, now?: number): number;
  /** When the next queued job becomes due (epoch ms), or null when none is queued. */
  nextDueAt(): number | null;
}
export const JobQueue = token<JobQueue>('jobs.jobQueue');

interface JobRow {
  id: number;
  task_dir_name: string;
  input: string | null;
  input_from_previous: number;
  project: string | null;
  status: JobStatus;
  exit_code: number | null;
  output: string;
  stderr: string;
  error: string | null;
  attempts: number;
  max_attempts: number;
  run_after: number;
  claimed_by: string | null;
  heartbeat: number | null;
  pid: number | null;
  pid_start: string | null;
  pipeline_id: number | null;
  step: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

@injectable()
export class SqliteJobQueue implements JobQueue {
  constructor(@inject(Database) private readonly db: Database) {}

  enqueue(job: NewJob): Job {
    return writeTransaction(this.db, () => {
      const row = this.db
        .prepare(
          `INSERT INTO pipeline_jobs (task_dir_name, input, project, status, max_attempts, run_after, created_at)
           VALUES (?, ?, ?, 'queued', ?, ?, ?) RETURNING *`,
        )
        .get(job.taskDirName, inputText(job.input), job.project, job.maxAttempts, Date.now(), isoNow()) as JobRow;
      return toJob(row);
    });
  }

  enqueueClaimed(job: NewJob, claimant: string): Job {
    return writeTransaction(this.db, () => {
      const now = Date.now();
      const row = this.db
        .prepare(
          `INSERT INTO pipeline_jobs (task_dir_name, input, project, status, attempts, max_attempts, run_after, claimed_by, heartbeat, started_at, created_at)
           VALUES (?, ?, ?, 'running', 1, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(job.taskDirName, inputText(job.input), job.project, job.maxAttempts, now, claimant, now, isoNow(), isoNow()) as JobRow;
      return toJob(row);
    });
  }

  enqueuePipeline(project: string | null, steps: readonly NewPipelineStep[]): Pipeline {
    return writeTransaction(this.db, () => {
      const { id } = this.db
        .prepare('INSERT INTO pipelines (project, created_at) VALUES (?, ?) RETURNING id')
        .get(project, isoNow()) as { id: number };
      const insert = this.db.prepare(
        `INSERT INTO pipeline_jobs (task_dir_name, input, input_from_previous, project, status, max_attempts, run_after, pipeline_id, step, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      steps.forEach((step, index) => {
        const fromPrevious = index > 0 && !step.hasInput;
        insert.run(
          step.taskDirName,
          fromPrevious ? null : inputText(step.input),
          fromPrevious ? 1 : 0,
          project,
          index === 0 ? 'queued' : 'waiting',
          step.maxAttempts,
          Date.now(),
          id,
          index,
          isoNow(),
        );
      });
      return this.getPipeline(id);
    });
  }

  claim(workerId: string, now = Date.now()): Job | null {
    return this.claimWhere(
      "id = (SELECT id FROM pipeline_jobs WHERE status = 'queued' AND claimed_by IS NULL AND run_after <= ? ORDER BY run_after, id LIMIT 1)",
      workerId,
      now,
      [now],
    );
  }

  claimById(id: number, claimant: string, now = Date.now()): Job | null {
    return this.claimWhere("id = ? AND status = 'queued' AND run_after <= ? AND (claimed_by IS NULL OR claimed_by = ?)", claimant, now, [id, now, claimant]);
  }

  /** Marks the job `where` picks running for `claimant` and counts the attempt, in one transaction. */
  private claimWhere(where: string, claimant: string, now: number, params: readonly unknown[]): Job | null {
    return writeTransaction(this.db, () => {
      const row = this.db
        .prepare(
          `UPDATE pipeline_jobs
             SET status = 'running', attempts = attempts + 1, claimed_by = ?, heartbeat = ?, started_at = ?,
                 finished_at = NULL, pid = NULL, pid_start = NULL
           WHERE ${where}
           RETURNING *`,
        )
        .get(claimant, now, isoNow(), ...params) as JobRow | undefined;
      return row === undefined ? null : toJob(row);
    });
  }

  recordProcess(id: number, workerId: string, pid: number, start: string | null): void {
    writeTransaction(this.db, () =>
      this.db
        .prepare("UPDATE pipeline_jobs SET pid = ?, pid_start = ? WHERE id = ? AND claimed_by = ? AND status = 'running'")
        .run(pid, start, id, workerId),
    );
  }

  heartbeat(workerId: string, ids: readonly number[]): void {
    if (ids.length === 0) return;
    writeTransaction(this.db, () => {
      const beat = this.db.prepare("UPDATE pipeline_jobs SET heartbeat = ? WHERE id = ? AND claimed_by = ? AND status = 'running'");
      for (const id of ids) beat.run(Date.now(), id, workerId);
    });
  }

  finish(id: number, workerId: string, outcome: JobOutcome, retryDelayMs: number, options: FinishOptions = {}): Job | null {
    return writeTransaction(this.db, () => {
      const row = this.db
        .prepare("SELECT * FROM pipeline_jobs WHERE id = ? AND claimed_by = ? AND status = 'running'")
        .get(id, workerId) as JobRow | undefined;
      if (row === undefined) return null;
      const retry = !outcome.succeeded && outcome.retryable && row.attempts < row.max_attempts;
      const status: JobStatus = outcome.succeeded ? 'succeeded' : retry ? 'queued' : 'failed';
      const error = retry
        ? `attempt ${row.attempts} of ${row.max_attempts} failed${outcome.error === null ? '' : ` (${outcome.error})`}; trying again`
        : outcome.error;
      this.db
        .prepare(
          `UPDATE pipeline_jobs
             SET status = ?, exit_code = ?, output = ?, stderr = ?, error = ?, run_after = ?, finished_at = ?,
                 heartbeat = NULL, pid = NULL, pid_start = NULL, claimed_by = CASE WHEN ? THEN NULL ELSE claimed_by END
           WHERE id = ?`,
        )
        .run(
          status,
          outcome.exitCode,
          outcome.output,
          outcome.stderr,
          error,
          retry ? Date.now() + retryDelayMs : row.run_after,
          retry ? null : isoNow(),
          retry && options.holdRetry !== true ? 1 : 0,
          id,
        );
      if (status === 'succeeded') this.advancePipeline(row, outcome.output);
      if (status === 'failed') this.skipRest(row);
      return this.get(id);
    });
  }

  cancelPending(id: number, reason: string): Job | null {
    return writeTransaction(this.db, () => {
      const row = this.db.prepare("SELECT * FROM pipeline_jobs WHERE id = ? AND status IN ('queued', 'waiting')").get(id) as JobRow | undefined;
      if (row === undefined) {
        this.get(id); // a job that does not exist is an error, not a quiet null
        return null;
      }
      this.db
        .prepare(
          `UPDATE pipeline_jobs
             SET status = 'failed', error = ?, finished_at = ?, claimed_by = NULL, heartbeat = NULL, pid = NULL, pid_start = NULL
           WHERE id = ?`,
        )
        .run(reason, isoNow(), id);
      this.skipRest(row);
      return this.get(id);
    });
  }

  listRunning(): RunningJob[] {
    return (this.db.prepare("SELECT * FROM pipeline_jobs WHERE status = 'running' ORDER BY id").all() as JobRow[]).map(toRunningJob);
  }

  listHeld(): RunningJob[] {
    return (this.db.prepare("SELECT * FROM pipeline_jobs WHERE status = 'queued' AND claimed_by IS NOT NULL ORDER BY id").all() as JobRow[]).map(toRunningJob);
  }

  unhold(id: number): Job {
    return writeTransaction(this.db, () => {
      this.db.prepare("UPDATE pipeline_jobs SET claimed_by = NULL WHERE id = ? AND status = 'queued'").run(id);
      return this.get(id);
    });
  }

  releaseInterrupted(id: number, reason: string, mayRetry = true): Job {
    return writeTransaction(this.db, () => {
      const row = this.db.prepare("SELECT * FROM pipeline_jobs WHERE id = ? AND status = 'running'").get(id) as JobRow | undefined;
      if (row === undefined) return this.get(id);
      const again = mayRetry && row.attempts < row.max_attempts;
      this.db
        .prepare(
          `UPDATE pipeline_jobs
             SET status = ?, error = ?, run_after = ?, finished_at = ?, claimed_by = NULL, heartbeat = NULL, pid = NULL, pid_start = NULL
           WHERE id = ?`,
        )
        .run(again ? 'queued' : 'failed', again ? `${reason}; queued again` : reason, Date.now(), again ? null : isoNow(), id);
      if (!again) this.skipRest(row);
      return this.get(id);
    });
  }

  get(id: number): Job {
    const row = this.db.prepare('SELECT * FROM pipeline_jobs WHERE id = ?').get(id) as JobRow | undefined;
    if (row === undefined) throw new JobNotFoundError(id);
    return toJob(row);
  }

  getPipeline(id: number): Pipeline {
    const pipeline = this.db.prepare('SELECT id, project, created_at FROM pipelines WHERE id = ?').get(id) as
      | { id: number; project: string | null; created_at: string }
      | undefined;
    if (pipeline === undefined) throw new PipelineNotFoundError(id);
    const jobs = (this.db.prepare('SELECT * FROM pipeline_jobs WHERE pipeline_id = ? ORDER BY step').all(id) as JobRow[]).map(toJob);
    return { id: pipeline.id, project: pipeline.project, status: pipelineStatus(jobs), createdAt: pipeline.created_at, jobs };
  }

  list(options: JobListOptions = {}): JobSummary[] {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
    const where: string[] = [];
    const values: (string | number)[] = [];
    if (options.status !== undefined) {
      where.push('status = ?');
      values.push(options.status);
    }
    if (options.task !== undefined) {
      where.push('task_dir_name = ?');
      values.push(options.task);
    }
    if (options.before !== undefined) {
      where.push('id < ?');
      values.push(options.before);
    }
    const rows = this.db
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM pipeline_jobs ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT ?`)
      .all(...values, limit) as JobRow[];
    return rows.map(toJobSummary);
  }

  prune(retention: JobRetention, now = Date.now()): number {
    return writeTransaction(this.db, () => {
      // The id of the keepJobs-th newest finished job: finished jobs below it are beyond the count.
      const newest = this.db
        .prepare(`SELECT id FROM pipeline_jobs WHERE status IN ${FINISHED} ORDER BY id DESC LIMIT 1 OFFSET ?`)
        .get(Math.max(retention.keepJobs, 1) - 1) as { id: number } | undefined;
      const cutoff = new Date(now - retention.keepDays * 24 * 60 * 60 * 1000).toISOString();
      const floor = newest?.id ?? 0;
      const prunable = (row: string): string => `(${row}.status IN ${FINISHED} AND (${row}.id < @floor OR ${row}.finished_at < @cutoff))`;
      const deleted = this.db
        .prepare(
          `DELETE FROM pipeline_jobs WHERE id IN (
             SELECT j.id FROM pipeline_jobs j
             WHERE ${prunable('j')}
               AND (j.pipeline_id IS NULL OR NOT EXISTS (
                 SELECT 1 FROM pipeline_jobs k WHERE k.pipeline_id = j.pipeline_id AND NOT ${prunable('k')})))`,
        )
        .run({ floor, cutoff }).changes;
      if (deleted > 0) this.db.prepare('DELETE FROM pipelines WHERE NOT EXISTS (SELECT 1 FROM pipeline_jobs WHERE pipeline_id = pipelines.id)').run();
      return deleted;
    });
  }

  nextDueAt(): number | null {
    const row = this.db.prepare("SELECT MIN(run_after) AS due FROM pipeline_jobs WHERE status = 'queued'").get() as { due: number | null };
    return row.due;
  }

  /** Queues the step after `row`, handing it `output` when it takes the previous output. */
  private advancePipeline(row: JobRow, output: string): void {
    if (row.pipeline_id === null || row.step === null) return;
    const next = this.db
      .prepare("SELECT id, input_from_previous FROM pipeline_jobs WHERE pipeline_id = ? AND step = ? AND status = 'waiting'")
      .get(row.pipeline_id, row.step + 1) as { id: number; input_from_previous: number } | undefined;
    if (next === undefined) return;
    if (next.input_from_previous === 1) {
      this.db
        .prepare("UPDATE pipeline_jobs SET status = 'queued', input = ?, run_after = ? WHERE id = ?")
        .run(JSON.stringify(outputAsInput(output)), Date.now(), next.id);
    } else {
      this.db.prepare("UPDATE pipeline_jobs SET status = 'queued', run_after = ? WHERE id = ?").run(Date.now(), next.id);
    }
  }

  private skipRest(row: JobRow): void {
    if (row.pipeline_id === null || row.step === null) return;
    this.db
      .prepare(
        `UPDATE pipeline_jobs SET status = 'skipped', error = ?, finished_at = ?
         WHERE pipeline_id = ? AND step > ? AND status = 'waiting'`,
      )
      .run(`skipped: step ${row.step + 1} (${row.task_dir_name}) failed`, isoNow(), row.pipeline_id, row.step);
  }
}

/**
 * What a pipeline step hands the next one: the output parsed as JSON when it is JSON (nested no
 * deeper than the API takes), else the text itself (so the next task reads a JSON string).
 */
export function outputAsInput(output: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output) as unknown;
  } catch {
    return output;
  }
  return exceedsJsonDepth(parsed) ? output : parsed;
}

/** A pipeline's status follows from its steps. */
export function pipelineStatus(jobs: readonly Job[]): PipelineStatus {
  if (jobs.some((job) => job.status === 'failed')) return 'failed';
  if (jobs.length > 0 && jobs.every((job) => job.status === 'succeeded')) return 'succeeded';
  if (jobs.some((job) => job.status === 'running' || job.status === 'succeeded' || job.attempts > 0)) return 'running';
  return 'queued';
}

function inputText(input: unknown): string {
  return JSON.stringify(input === undefined ? {} : input);
}

/** The statuses a job does not leave: the ones retention may prune. */
const FINISHED = "('succeeded', 'failed', 'skipped')";

/** What a listing reads of a row: never the input or the output. */
const SUMMARY_COLUMNS =
  'id, task_dir_name, project, status, exit_code, error, attempts, max_attempts, pipeline_id, step, created_at, started_at, finished_at';

function toJobSummary(row: Omit<JobRow, 'input' | 'output' | 'stderr'>): JobSummary {
  return {
    id: row.id,
    taskDirName: row.task_dir_name,
    project: row.project,
    status: row.status,
    exitCode: row.exit_code,
    error: row.error,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    pipelineId: row.pipeline_id,
    step: row.step,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

function toJob(row: JobRow): Job {
  return {
    ...toJobSummary(row),
    input: row.input === null ? undefined : (JSON.parse(row.input) as unknown),
    output: row.output,
    stderr: row.stderr,
  };
}

function toRunningJob(row: JobRow): RunningJob {
  return { ...toJob(row), claimedBy: row.claimed_by, process: row.pid === null ? null : { pid: row.pid, start: row.pid_start } };
}

function isoNow(): string {
  return new Date().toISOString();
}
