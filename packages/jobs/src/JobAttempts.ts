import { isLoadoutError, processStartTime } from '@loadout/files';
import { inject, injectable } from 'tsyringe';
import { JobEvents } from './JobEvents.js';
import { JobOutputFolders } from './JobOutputFolders.js';
import { type Job, JobLease, type JobOutcome, JobQueue, leaseTiming } from './JobQueue.js';
import { monotonicNow, RunDeadline } from './RunDeadline.js';
import { describeFailure, type ResolvedTask, TaskExecution } from './TaskExecution.js';

/** Why an attempt stopped early, as the job will record it. */
export interface Interruption {
  readonly reason: string;
  /** Whether the job may be tried again (the server stopping) or not (the caller cancelled). */
  readonly mayRetry: boolean;
}

export interface AttemptOptions {
  /** Aborting stops the task's process group; `interruption` then says what to record. */
  readonly signal: AbortSignal;
  readonly interruption: () => Interruption;
  /** How long a failed attempt waits before it is tried again. */
  readonly retryDelayMs: number;
  /** Keep a retry for this claimant rather than any worker (see `FinishOptions.holdRetry`). */
  readonly holdRetry?: boolean;
  /** The task as the caller just resolved it, for an attempt that starts at once (see {@link ResolvedTask}). */
  readonly resolved?: ResolvedTask;
  /**
   * When (see {@link monotonicNow}) the claim of this attempt was asked for, taken before the
   * claim: its lease runs from no earlier than that, so the first renewal deadline counts from it.
   */
  readonly claimedAt: number;
}

/** Why an attempt was stopped when another worker took its job. */
export const LEASE_LOST_REASON = 'its lease ran out and another worker took the job';

/** Why an attempt was stopped when its lease could not be renewed in time. */
export const LEASE_EXPIRED_REASON =
  'its lease could not be renewed in time (the database was out of reach or this process stalled), so the task was stopped';

/** The delay before the retry after attempt `attempt`: `baseMs`, then twice as long each time, at most 5 minutes. */
export function retryDelayAfter(attempt: number, baseMs: number): number {
  return Math.min(5 * 60 * 1000, baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * One attempt of a claimed job, from start to stored end: the task runs through
 * {@link TaskExecution}, its output and status changes go to {@link JobEvents}, its process is
 * recorded for recovery, its lease is renewed while it runs (see {@link leaseTiming}), and its
 * outcome is stored. An attempt whose lease another worker took (this process stalled past it)
 * stops its task at once and stores nothing: the job is the other worker's. An attempt whose
 * renewals have not succeeded by the renewal deadline has its task's process group killed (by the
 * guardian, so even while this process is frozen) before any other claimant may take the job, and
 * hands the job back when it still can. Shared by the
 * server's workers and by a process that runs the job it asked for itself, so both write a job's
 * life the same way.
 */
@injectable()
export class JobAttempts {
  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(TaskExecution) private readonly execution: TaskExecution,
    @inject(JobEvents) private readonly events: JobEvents,
    @inject(JobLease) private readonly lease: JobLease,
    @inject(JobOutputFolders) private readonly outputs: JobOutputFolders,
  ) {}

  /** Runs the attempt `job` (claimed by `claimant`) and returns the job as stored after it; null when it is no longer the claimant's. */
  async run(job: Job, claimant: string, options: AttemptOptions): Promise<Job | null> {
    const timing = leaseTiming(this.lease);
    const lease = new LeaseWatch(new RunDeadline(options.claimedAt + timing.renewDeadlineMs));
    const renewal = setInterval(() => {
      const sentAt = monotonicNow();
      this.queue.heartbeat(claimant, [job.id]).then(
        (gone) => {
          if (gone.length > 0) lease.taken();
          // The database set the lease from a moment no earlier than this renewal was sent.
          else lease.deadline.extend(sentAt + timing.renewDeadlineMs);
        },
        () => undefined, // a missed renewal is tried again at the next beat, until the deadline
      );
    }, timing.renewEveryMs);
    const signal = AbortSignal.any([options.signal, lease.signal]);
    try {
      return await this.attempt(job, claimant, { ...options, signal }, lease);
    } finally {
      clearInterval(renewal);
      lease.dispose();
    }
  }

  private async attempt(job: Job, claimant: string, options: AttemptOptions, lease: LeaseWatch): Promise<Job | null> {
    this.events.started(job);
    let outcome: JobOutcome;
    try {
      const result = await this.execution.execute({
        taskDirName: job.taskDirName,
        project: job.project,
        input: job.input,
        signal: options.signal,
        onOutput: (chunk) => this.events.output(job.id, chunk),
        onSpawn: (pid) => void this.queue.recordProcess(job.id, claimant, pid, processStartTime(pid)).catch(() => undefined),
        context: { jobId: job.id, ...(job.pipelineId === null ? {} : { pipelineId: job.pipelineId, step: job.step }) },
        deadline: lease.deadline,
        outputDir: this.outputs.prepare(job.id),
        ...(options.resolved === undefined ? {} : { resolved: options.resolved }),
      });
      if (lease.isTaken) return null;
      // Stopped by the deadline: here, or by the guardian while this process was frozen.
      const expired = lease.expired || (!result.succeeded && lease.deadline.passed);
      if (result.interrupted || expired) {
        const { reason, mayRetry } = expired ? { reason: LEASE_EXPIRED_REASON, mayRetry: true } : options.interruption();
        const released = await this.queue.releaseInterrupted(job.id, reason, { mayRetry, claimant });
        this.events.changed(released);
        return released;
      }
      const notes = [result.succeeded ? null : describeFailure(result), result.truncated ? 'output truncated' : null].filter(
        (note) => note !== null,
      );
      outcome = {
        succeeded: result.succeeded,
        exitCode: result.exitCode,
        output: result.stdout,
        stderr: result.stderr,
        error: notes.length === 0 ? null : notes.join('; '),
        retryable: true,
      };
    } catch (error) {
      if (lease.isTaken) return null;
      // A refusal (the task is gone, cannot be run, the project folder vanished) will not change
      // on another attempt; anything else might.
      outcome = {
        succeeded: false,
        exitCode: null,
        output: '',
        stderr: '',
        error: (error as Error).message,
        retryable: !isLoadoutError(error),
      };
    }
    let finished: Job | null;
    try {
      finished = await this.queue.finish(job.id, claimant, outcome, options.retryDelayMs, { holdRetry: options.holdRetry === true });
    } catch (error) {
      // The result could not be stored: hand the job back rather than leave it "running" until
      // its lease runs out.
      const released = await this.queue.releaseInterrupted(job.id, `its result could not be recorded: ${(error as Error).message}`, {
        claimant,
      });
      this.events.changed(released);
      return released;
    }
    if (finished === null) return null;
    this.events.changed(finished);
    if (finished.pipelineId !== null && finished.step !== null && finished.status !== 'queued') {
      // The steps after this one changed with it: the next was queued, or the rest were skipped.
      const after = finished.step;
      for (const step of (await this.queue.getPipeline(finished.pipelineId)).jobs) {
        if (step.step !== null && step.step > after && step.status !== 'waiting') this.events.changed(step);
      }
    }
    return finished;
  }
}

/**
 * An attempt's lease as its process sees it: the renewal deadline, a timer that stops the attempt
 * when it passes, and whether another claimant took the job. Either ends the attempt's signal.
 */
class LeaseWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout;
  private readonly unfollow: () => void;
  expired = false;
  isTaken = false;

  constructor(readonly deadline: RunDeadline) {
    this.timer = this.arm();
    this.unfollow = deadline.follow(() => {
      clearTimeout(this.timer);
      this.timer = this.arm();
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  taken(): void {
    this.isTaken = true;
    this.controller.abort(LEASE_LOST_REASON);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.unfollow();
  }

  private arm(): NodeJS.Timeout {
    return setTimeout(
      () => {
        if (!this.deadline.passed) {
          this.timer = this.arm();
          return;
        }
        this.expired = true;
        this.controller.abort(LEASE_EXPIRED_REASON);
      },
      Math.max(0, this.deadline.at - monotonicNow()),
    );
  }
}
