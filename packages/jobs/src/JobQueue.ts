import { type SqlClient, SqlDatabase } from '@loadout/db';
import { exceedsJsonDepth, token } from '@loadout/kernel';
import { InvalidInputError } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { JobNotFoundError, PipelineNotFoundError } from './JobErrors.js';
import type { JobRetention } from './JobRetention.js';

/**
 * `waiting`: a pipeline step whose previous step has not succeeded yet. `skipped`: a pipeline step
 * after a failed one. A job is in exactly one of these states; only `queued` jobs are claimed.
 */
export type JobStatus = 'waiting' | 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';

/**
 * Where a run was started: an MCP tool call (`mcp`), the HTTP API (`http`), the command line
 * (`cli`), or a schedule (`schedule`). The usage ledger counts a run once: the MCP layer records
 * its own calls, the job's end records every other.
 */
export const JOB_ORIGINS = ['mcp', 'http', 'cli', 'schedule'] as const;
export type JobOrigin = (typeof JOB_ORIGINS)[number];

/** A job as the API shows it. */
export interface Job {
  readonly id: number;
  readonly taskDirName: string;
  /** Where it was started; null for a job stored before origins were kept. */
  readonly origin: JobOrigin | null;
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

/** A running job with the process it started, for recovery after a crash. */
export interface RunningJob extends Job {
  readonly claimedBy: string | null;
  readonly process: { readonly pid: number; readonly start: string | null } | null;
}

export interface NewJob {
  readonly taskDirName: string;
  readonly project: string | null;
  /** Where it was started (the scheduler always says); left out, it is not known and the ledger does not count the run. */
  readonly origin?: JobOrigin;
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

/** How {@link JobQueue.releaseInterrupted} ends a job. */
export interface ReleaseOptions {
  readonly mayRetry?: boolean;
  readonly claimant?: string;
}

/**
 * The job queue in the database, the same contract on SQLite and PostgreSQL. Every state change is
 * one transaction, so a claim is atomic across workers, processes and hosts, and a job is claimed
 * by exactly one of them. A claim is a lease: it lasts {@link JobLease} from the claim or the last
 * {@link JobQueue.heartbeat}, and a running job whose lease ran out (its server died or stalled) is
 * claimed again by any worker, once, a grace after the lease (see {@link leaseTiming}). Every write
 * is fenced by the claimant, so the worker that lost a lease can neither renew it nor store a
 * result. A queued job held for a claimant (see
 * {@link FinishOptions.holdRetry}) is never taken by {@link JobQueue.claim}.
 */
export interface JobQueue {
  /** True when servers on other hosts share the queue (PostgreSQL): their running jobs are theirs until the lease ends. */
  readonly sharedByHosts: boolean;
  enqueue(job: NewJob): Promise<Job>;
  /**
   * Stores a job that is already running for `claimant` (its first attempt counted): for a process
   * that runs the job it asked for itself, so no worker can take it first.
   */
  enqueueClaimed(job: NewJob, claimant: string): Promise<Job>;
  /** Stores a pipeline and its steps, each with `origin`; the first step is queued, the others wait. */
  enqueuePipeline(project: string | null, steps: readonly NewPipelineStep[], origin?: JobOrigin): Promise<Pipeline>;
  /**
   * Takes the oldest job that is due (queued, or running on a lease that ran out a grace ago), marks it running
   * for `workerId` and counts the attempt. A job whose lease ran out after its last allowed attempt
   * and the one extra start a dead server earns it is failed instead.
   */
  claim(workerId: string, now?: number): Promise<Job | null>;
  /** Takes one queued job by id when it is due and not held for another claimant; null otherwise. */
  claimById(id: number, claimant: string, now?: number): Promise<Job | null>;
  /** Remembers the process a running job started, so a later server can stop it after a crash. */
  recordProcess(id: number, workerId: string, pid: number, start: string | null): Promise<void>;
  /** Renews the leases of `ids`; returns the ids whose lease is no longer this worker's (another took the job). */
  heartbeat(workerId: string, ids: readonly number[]): Promise<number[]>;
  /**
   * Ends an attempt. A failed attempt is queued again after `retryDelayMs` while attempts remain;
   * a finished pipeline step queues the next step (handing it this output) or skips the rest.
   * Returns null when the job is no longer this worker's (it was recovered meanwhile).
   */
  finish(id: number, workerId: string, outcome: JobOutcome, retryDelayMs: number, options?: FinishOptions): Promise<Job | null>;
  /**
   * Ends a job that has not started running (queued, held for a retry, or a waiting pipeline
   * step): failed with `reason`, the rest of its pipeline skipped. Null when it is running or
   * already finished: a running job is stopped by whoever runs it.
   */
  cancelPending(id: number, reason: string): Promise<Job | null>;
  /** Every job marked running, with its process. */
  listRunning(): Promise<RunningJob[]>;
  /** Every queued job held for a claimant (a retry its process will run itself). */
  listHeld(): Promise<RunningJob[]>;
  /** Lets any worker take a held job: its claimant is gone. */
  unhold(id: number): Promise<Job>;
  /**
   * Ends a running job whose process was stopped from outside the attempt (the server stopped):
   * queued again while attempts remain and `mayRetry` (default true), else failed with `reason`.
   * With `claimant`, only while the job is still that claimant's: a worker that lost its lease
   * leaves the job to whoever took it.
   */
  releaseInterrupted(id: number, reason: string, options?: ReleaseOptions): Promise<Job>;
  get(id: number): Promise<Job>;
  getPipeline(id: number): Promise<Pipeline>;
  /** The newest jobs first, without their input or output. */
  list(options?: JobListOptions): Promise<JobSummary[]>;
  /**
   * Deletes finished jobs beyond the newest `keepJobs` and those that finished more than
   * `keepDays` before `now`. A pipeline's jobs go only all together, once every one of them may go.
   * Returns how many jobs were deleted.
   */
  prune(retention: JobRetention, now?: number): Promise<number>;
  /** When the next queued job becomes due (epoch ms), or null when none is queued. */
  nextDueAt(): Promise<number | null>;
}
export const JobQueue = token<JobQueue>('jobs.jobQueue');

/** How long a claim lasts without a heartbeat (`LOADOUT_JOB_LEASE_SECONDS`, default 30 s). */
export interface JobLease {
  readonly ms: number;
}
export const JobLease = token<JobLease>('jobs.lease');

/** The variable that sets the lease, in seconds. */
export const JOB_LEASE_VARIABLE = 'LOADOUT_JOB_LEASE_SECONDS';

export const DEFAULT_JOB_LEASE: JobLease = { ms: 30_000 };

/**
 * How a lease is kept, so that a task never runs on while another server runs its job. The claimant
 * renews every fifth of the lease; a process whose renewals have not succeeded for three quarters
 * of it stops the task (its guardian kills the group even when the process itself is frozen); and
 * another claimant takes the job only a quarter of a lease after the lease ran out. Between the
 * stop and the earliest takeover lie half a lease (15 s by default) for the kill to land and for
 * the hosts' clocks to differ.
 */
export interface LeaseTiming {
  readonly renewEveryMs: number;
  /** Counted from when the last successful renewal (or the claim) was sent. */
  readonly renewDeadlineMs: number;
  /** Added to `lease_until` before another claimant may take a running job. */
  readonly takeoverGraceMs: number;
}

export function leaseTiming(lease: JobLease): LeaseTiming {
  return {
    renewEveryMs: Math.max(20, Math.floor(lease.ms / 5)),
    renewDeadlineMs: Math.floor((lease.ms * 3) / 4),
    takeoverGraceMs: Math.ceil(lease.ms / 4),
  };
}

/** The lease `LOADOUT_JOB_LEASE_SECONDS` asks for (a positive number of seconds), else the default. */
export function jobLeaseFromEnvironment(environment: NodeJS.ProcessEnv = process.env): JobLease {
  const raw = environment[JOB_LEASE_VARIABLE];
  if (raw === undefined || raw === '') return DEFAULT_JOB_LEASE;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
    throw new InvalidInputError(
      'JOB_LEASE_INVALID',
      `${JOB_LEASE_VARIABLE} must be a number of seconds between 0 and 86400, got "${raw.slice(0, 40)}"`,
    );
  }
  return { ms: Math.round(seconds * 1000) };
}

/** The channel a PostgreSQL queue announces due jobs on, so idle workers on every host wake. */
export const JOBS_CHANNEL = 'loadout_jobs';

interface JobRow {
  id: number;
  task_dir_name: string;
  input: string | null;
  input_from_previous: number;
  project: string | null;
  origin: string;
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
  lease_until: number | null;
  pid: number | null;
  pid_start: string | null;
  pipeline_id: number | null;
  step: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Why a job whose lease ran out is not tried again. */
const LEASE_LOST_REASON = 'its server stopped while running it (the lease ran out) and no attempt is left';

/** The {@link JobQueue} on whichever engine {@link SqlDatabase} is. */
@injectable()
export class SqlJobQueue implements JobQueue {
  readonly sharedByHosts: boolean;
  private readonly takeoverGraceMs: number;

  constructor(
    @inject(SqlDatabase) private readonly db: SqlDatabase,
    @inject(JobLease) private readonly lease: JobLease = DEFAULT_JOB_LEASE,
  ) {
    this.sharedByHosts = db.dialect === 'postgres';
    this.takeoverGraceMs = leaseTiming(lease).takeoverGraceMs;
  }

  enqueue(job: NewJob): Promise<Job> {
    return this.db.transaction(async (tx) => {
      const row = (await tx.queryOne<JobRow>(
        `INSERT INTO pipeline_jobs (task_dir_name, input, project, origin, status, max_attempts, run_after, created_at)
         VALUES (?, ?, ?, ?, 'queued', ?, ?, ?) RETURNING *`,
        [job.taskDirName, inputText(job.input), job.project, job.origin ?? '', job.maxAttempts, Date.now(), isoNow()],
      )) as JobRow;
      await this.db.notify(tx, JOBS_CHANNEL, 'queued');
      return toJob(row);
    });
  }

  enqueueClaimed(job: NewJob, claimant: string): Promise<Job> {
    return this.db.transaction(async (tx) => {
      const now = Date.now();
      const row = (await tx.queryOne<JobRow>(
        `INSERT INTO pipeline_jobs (task_dir_name, input, project, origin, status, attempts, max_attempts, run_after, claimed_by, heartbeat, lease_until, started_at, created_at)
         VALUES (?, ?, ?, ?, 'running', 1, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        [
          job.taskDirName,
          inputText(job.input),
          job.project,
          job.origin ?? '',
          job.maxAttempts,
          now,
          claimant,
          now,
          now + this.lease.ms,
          isoNow(),
          isoNow(),
        ],
      )) as JobRow;
      return toJob(row);
    });
  }

  enqueuePipeline(project: string | null, steps: readonly NewPipelineStep[], origin?: JobOrigin): Promise<Pipeline> {
    return this.db.transaction(async (tx) => {
      const { id } = (await tx.queryOne<{ id: number }>('INSERT INTO pipelines (project, created_at) VALUES (?, ?) RETURNING id', [
        project,
        isoNow(),
      ])) as {
        id: number;
      };
      for (const [index, step] of steps.entries()) {
        const fromPrevious = index > 0 && !step.hasInput;
        await tx.run(
          `INSERT INTO pipeline_jobs (task_dir_name, input, input_from_previous, project, origin, status, max_attempts, run_after, pipeline_id, step, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            step.taskDirName,
            fromPrevious ? null : inputText(step.input),
            fromPrevious ? 1 : 0,
            project,
            origin ?? '',
            index === 0 ? 'queued' : 'waiting',
            step.maxAttempts,
            Date.now(),
            id,
            index,
            isoNow(),
          ],
        );
      }
      await this.db.notify(tx, JOBS_CHANNEL, 'queued');
      return pipelineOf(tx, id);
    });
  }

  claim(workerId: string, now = Date.now()): Promise<Job | null> {
    return this.db.transaction(async (tx) => {
      const lost = await tx.query<JobRow>(
        `UPDATE pipeline_jobs
           SET status = 'failed', error = ?, finished_at = ?, claimed_by = NULL, heartbeat = NULL, lease_until = NULL, pid = NULL, pid_start = NULL
         WHERE id IN (SELECT id FROM pipeline_jobs WHERE status = 'running' AND lease_until < ? AND attempts > max_attempts${this.db.forUpdateSkipLocked})
         RETURNING *`,
        [LEASE_LOST_REASON, isoNow(), now - this.takeoverGraceMs],
      );
      for (const row of lost) await skipRest(tx, row);
      const picked = await tx.queryOne<{ id: number }>(
        `SELECT id FROM pipeline_jobs
         WHERE (status = 'queued' AND claimed_by IS NULL AND run_after <= ?) OR (status = 'running' AND lease_until < ?)
         ORDER BY run_after, id LIMIT 1${this.db.forUpdateSkipLocked}`,
        // A lapsed lease is taken only after the grace: its claimant has stopped the task by then.
        [now, now - this.takeoverGraceMs],
      );
      return picked === undefined ? null : this.markClaimed(tx, picked.id, workerId, now);
    });
  }

  claimById(id: number, claimant: string, now = Date.now()): Promise<Job | null> {
    return this.db.transaction(async (tx) => {
      const picked = await tx.queryOne<{ id: number }>(
        `SELECT id FROM pipeline_jobs WHERE id = ? AND status = 'queued' AND run_after <= ? AND (claimed_by IS NULL OR claimed_by = ?)${this.db.forUpdate}`,
        [id, now, claimant],
      );
      return picked === undefined ? null : this.markClaimed(tx, id, claimant, now);
    });
  }

  /** Marks the job running for `claimant` on a fresh lease and counts the attempt. */
  private async markClaimed(tx: SqlClient, id: number, claimant: string, now: number): Promise<Job> {
    const row = (await tx.queryOne<JobRow>(
      `UPDATE pipeline_jobs
         SET status = 'running', attempts = attempts + 1, claimed_by = ?, heartbeat = ?, lease_until = ?, started_at = ?,
             finished_at = NULL, pid = NULL, pid_start = NULL
       WHERE id = ?
       RETURNING *`,
      [claimant, now, now + this.lease.ms, isoNow(), id],
    )) as JobRow;
    return toJob(row);
  }

  async recordProcess(id: number, workerId: string, pid: number, start: string | null): Promise<void> {
    await this.db.run("UPDATE pipeline_jobs SET pid = ?, pid_start = ? WHERE id = ? AND claimed_by = ? AND status = 'running'", [
      pid,
      start,
      id,
      workerId,
    ]);
  }

  async heartbeat(workerId: string, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const lost: number[] = [];
      for (const id of ids) {
        const now = Date.now();
        const renewed = await tx.run(
          "UPDATE pipeline_jobs SET heartbeat = ?, lease_until = ? WHERE id = ? AND claimed_by = ? AND status = 'running'",
          [now, now + this.lease.ms, id, workerId],
        );
        if (renewed === 0) lost.push(id);
      }
      return lost;
    });
  }

  finish(id: number, workerId: string, outcome: JobOutcome, retryDelayMs: number, options: FinishOptions = {}): Promise<Job | null> {
    return this.db.transaction(async (tx) => {
      const row = await tx.queryOne<JobRow>(
        `SELECT * FROM pipeline_jobs WHERE id = ? AND claimed_by = ? AND status = 'running'${this.db.forUpdate}`,
        [id, workerId],
      );
      if (row === undefined) return null;
      const retry = !outcome.succeeded && outcome.retryable && row.attempts < row.max_attempts;
      const status: JobStatus = outcome.succeeded ? 'succeeded' : retry ? 'queued' : 'failed';
      const error = retry
        ? `attempt ${row.attempts} of ${row.max_attempts} failed${outcome.error === null ? '' : ` (${outcome.error})`}; trying again`
        : outcome.error;
      const releaseClaim = retry && options.holdRetry !== true;
      await tx.run(
        `UPDATE pipeline_jobs
           SET status = ?, exit_code = ?, output = ?, stderr = ?, error = ?, run_after = ?, finished_at = ?,
               heartbeat = NULL, lease_until = NULL, pid = NULL, pid_start = NULL, claimed_by = ?
         WHERE id = ?`,
        [
          status,
          outcome.exitCode,
          outcome.output,
          outcome.stderr,
          error,
          retry ? Date.now() + retryDelayMs : row.run_after,
          retry ? null : isoNow(),
          releaseClaim ? null : row.claimed_by,
          id,
        ],
      );
      if (status === 'succeeded') await advancePipeline(tx, row, outcome.output);
      if (status === 'failed') await skipRest(tx, row);
      if (status !== 'failed') await this.db.notify(tx, JOBS_CHANNEL, 'queued');
      return jobOf(tx, id);
    });
  }

  cancelPending(id: number, reason: string): Promise<Job | null> {
    return this.db.transaction(async (tx) => {
      const row = await tx.queryOne<JobRow>(
        `SELECT * FROM pipeline_jobs WHERE id = ? AND status IN ('queued', 'waiting')${this.db.forUpdate}`,
        [id],
      );
      if (row === undefined) {
        await jobOf(tx, id); // a job that does not exist is an error, not a quiet null
        return null;
      }
      await tx.run(
        `UPDATE pipeline_jobs
           SET status = 'failed', error = ?, finished_at = ?, claimed_by = NULL, heartbeat = NULL, lease_until = NULL, pid = NULL, pid_start = NULL
         WHERE id = ?`,
        [reason, isoNow(), id],
      );
      await skipRest(tx, row);
      return jobOf(tx, id);
    });
  }

  async listRunning(): Promise<RunningJob[]> {
    return (await this.db.query<JobRow>("SELECT * FROM pipeline_jobs WHERE status = 'running' ORDER BY id")).map(toRunningJob);
  }

  async listHeld(): Promise<RunningJob[]> {
    return (await this.db.query<JobRow>("SELECT * FROM pipeline_jobs WHERE status = 'queued' AND claimed_by IS NOT NULL ORDER BY id")).map(
      toRunningJob,
    );
  }

  unhold(id: number): Promise<Job> {
    return this.db.transaction(async (tx) => {
      await tx.run("UPDATE pipeline_jobs SET claimed_by = NULL WHERE id = ? AND status = 'queued'", [id]);
      await this.db.notify(tx, JOBS_CHANNEL, 'queued');
      return jobOf(tx, id);
    });
  }

  releaseInterrupted(id: number, reason: string, options: ReleaseOptions = {}): Promise<Job> {
    return this.db.transaction(async (tx) => {
      const row = await tx.queryOne<JobRow>(`SELECT * FROM pipeline_jobs WHERE id = ? AND status = 'running'${this.db.forUpdate}`, [id]);
      if (row === undefined || (options.claimant !== undefined && row.claimed_by !== options.claimant)) return jobOf(tx, id);
      const again = options.mayRetry !== false && row.attempts < row.max_attempts;
      await tx.run(
        `UPDATE pipeline_jobs
           SET status = ?, error = ?, run_after = ?, finished_at = ?, claimed_by = NULL, heartbeat = NULL, lease_until = NULL, pid = NULL, pid_start = NULL
         WHERE id = ?`,
        [again ? 'queued' : 'failed', again ? `${reason}; queued again` : reason, Date.now(), again ? null : isoNow(), id],
      );
      if (again) await this.db.notify(tx, JOBS_CHANNEL, 'queued');
      else await skipRest(tx, row);
      return jobOf(tx, id);
    });
  }

  get(id: number): Promise<Job> {
    return jobOf(this.db, id);
  }

  getPipeline(id: number): Promise<Pipeline> {
    return pipelineOf(this.db, id);
  }

  async list(options: JobListOptions = {}): Promise<JobSummary[]> {
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
    const rows = await this.db.query<JobRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM pipeline_jobs ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT ?`,
      [...values, limit],
    );
    return rows.map(toJobSummary);
  }

  prune(retention: JobRetention, now = Date.now()): Promise<number> {
    return this.db.transaction(async (tx) => {
      // The id of the keepJobs-th newest finished job: finished jobs below it are beyond the count.
      const newest = await tx.queryOne<{ id: number }>(
        `SELECT id FROM pipeline_jobs WHERE status IN ${FINISHED} ORDER BY id DESC LIMIT 1 OFFSET ?`,
        [Math.max(retention.keepJobs, 1) - 1],
      );
      const cutoff = new Date(now - retention.keepDays * 24 * 60 * 60 * 1000).toISOString();
      const floor = newest?.id ?? 0;
      const prunable = (row: string): string => `(${row}.status IN ${FINISHED} AND (${row}.id < ? OR ${row}.finished_at < ?))`;
      const deleted = await tx.run(
        `DELETE FROM pipeline_jobs WHERE id IN (
           SELECT j.id FROM pipeline_jobs j
           WHERE ${prunable('j')}
             AND (j.pipeline_id IS NULL OR NOT EXISTS (
               SELECT 1 FROM pipeline_jobs k WHERE k.pipeline_id = j.pipeline_id AND NOT ${prunable('k')})))`,
        [floor, cutoff, floor, cutoff],
      );
      if (deleted > 0)
        await tx.run('DELETE FROM pipelines WHERE NOT EXISTS (SELECT 1 FROM pipeline_jobs WHERE pipeline_id = pipelines.id)');
      return deleted;
    });
  }

  async nextDueAt(): Promise<number | null> {
    const row = await this.db.queryOne<{ due: number | null }>(
      "SELECT MIN(CASE WHEN status = 'queued' THEN run_after ELSE lease_until + ? END) AS due FROM pipeline_jobs WHERE status = 'queued' OR status = 'running'",
      [this.takeoverGraceMs],
    );
    return row?.due ?? null;
  }
}

async function jobOf(client: SqlClient, id: number): Promise<Job> {
  const row = await client.queryOne<JobRow>('SELECT * FROM pipeline_jobs WHERE id = ?', [id]);
  if (row === undefined) throw new JobNotFoundError(id);
  return toJob(row);
}

async function pipelineOf(client: SqlClient, id: number): Promise<Pipeline> {
  const pipeline = await client.queryOne<{ id: number; project: string | null; created_at: string }>(
    'SELECT id, project, created_at FROM pipelines WHERE id = ?',
    [id],
  );
  if (pipeline === undefined) throw new PipelineNotFoundError(id);
  const jobs = (await client.query<JobRow>('SELECT * FROM pipeline_jobs WHERE pipeline_id = ? ORDER BY step', [id])).map(toJob);
  return { id: pipeline.id, project: pipeline.project, status: pipelineStatus(jobs), createdAt: pipeline.created_at, jobs };
}

/** Queues the step after `row`, handing it `output` when it takes the previous output. */
async function advancePipeline(tx: SqlClient, row: JobRow, output: string): Promise<void> {
  if (row.pipeline_id === null || row.step === null) return;
  const next = await tx.queryOne<{ id: number; input_from_previous: number }>(
    "SELECT id, input_from_previous FROM pipeline_jobs WHERE pipeline_id = ? AND step = ? AND status = 'waiting'",
    [row.pipeline_id, row.step + 1],
  );
  if (next === undefined) return;
  if (next.input_from_previous === 1) {
    await tx.run("UPDATE pipeline_jobs SET status = 'queued', input = ?, run_after = ? WHERE id = ?", [
      JSON.stringify(outputAsInput(output)),
      Date.now(),
      next.id,
    ]);
  } else {
    await tx.run("UPDATE pipeline_jobs SET status = 'queued', run_after = ? WHERE id = ?", [Date.now(), next.id]);
  }
}

async function skipRest(tx: SqlClient, row: JobRow): Promise<void> {
  if (row.pipeline_id === null || row.step === null) return;
  await tx.run(
    `UPDATE pipeline_jobs SET status = 'skipped', error = ?, finished_at = ?
     WHERE pipeline_id = ? AND step > ? AND status = 'waiting'`,
    [`skipped: step ${row.step + 1} (${row.task_dir_name}) failed`, isoNow(), row.pipeline_id, row.step],
  );
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
  'id, task_dir_name, project, origin, status, exit_code, error, attempts, max_attempts, pipeline_id, step, created_at, started_at, finished_at';

function toJobSummary(row: Omit<JobRow, 'input' | 'output' | 'stderr'>): JobSummary {
  return {
    id: row.id,
    taskDirName: row.task_dir_name,
    origin: originOf(row.origin),
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

/** A stored origin as the API shows it: '' (a job stored before origins were kept) is null. */
function originOf(text: string): JobOrigin | null {
  return (JOB_ORIGINS as readonly string[]).includes(text) ? (text as JobOrigin) : null;
}

function isoNow(): string {
  return new Date().toISOString();
}
