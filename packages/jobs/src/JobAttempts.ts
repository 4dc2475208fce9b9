import { isLoadoutError, processStartTime } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { JobEvents } from './JobEvents.js';
import { type Job, type JobOutcome, JobQueue } from './JobQueue.js';
import { describeFailure, TaskExecution } from './TaskExecution.js';

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
}

/** The delay before the retry after attempt `attempt`: `baseMs`, then twice as long each time, at most 5 minutes. */
export function retryDelayAfter(attempt: number, baseMs: number): number {
  return Math.min(5 * 60 * 1000, baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * One attempt of a claimed job, from start to stored end: the task runs through
 * {@link TaskExecution}, its output and status changes go to {@link JobEvents}, its process is
 * recorded for recovery, and its outcome is stored. Shared by the server's workers and by a
 * process that runs the job it asked for itself, so both write a job's life the same way.
 */
@injectable()
export class JobAttempts {
  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(TaskExecution) private readonly execution: TaskExecution,
    @inject(JobEvents) private readonly events: JobEvents,
  ) {}

  /** Runs the attempt `job` (claimed by `claimant`) and returns the job as stored after it; null when it is no longer the claimant's. */
  async run(job: Job, claimant: string, options: AttemptOptions): Promise<Job | null> {
    this.events.started(job);
    let outcome: JobOutcome;
    try {
      const result = await this.execution.execute({
        taskDirName: job.taskDirName,
        project: job.project,
        input: job.input,
        signal: options.signal,
        onOutput: (chunk) => this.events.output(job.id, chunk),
        onSpawn: (pid) => this.queue.recordProcess(job.id, claimant, pid, processStartTime(pid)),
        context: { jobId: job.id, ...(job.pipelineId === null ? {} : { pipelineId: job.pipelineId, step: job.step }) },
      });
      if (result.interrupted) {
        const { reason, mayRetry } = options.interruption();
        const released = this.queue.releaseInterrupted(job.id, reason, mayRetry);
        this.events.changed(released);
        return released;
      }
      const notes = [result.succeeded ? null : describeFailure(result), result.truncated ? 'output truncated' : null].filter((note) => note !== null);
      outcome = {
        succeeded: result.succeeded,
        exitCode: result.exitCode,
        output: result.stdout,
        stderr: result.stderr,
        error: notes.length === 0 ? null : notes.join('; '),
        retryable: true,
      };
    } catch (error) {
      // A refusal (the task is gone, cannot be run, the project folder vanished) will not change
      // on another attempt; anything else might.
      outcome = { succeeded: false, exitCode: null, output: '', stderr: '', error: (error as Error).message, retryable: !isLoadoutError(error) };
    }
    let finished: Job | null;
    try {
      finished = this.queue.finish(job.id, claimant, outcome, options.retryDelayMs, { holdRetry: options.holdRetry === true });
    } catch (error) {
      // The result could not be stored: hand the job back rather than leave it "running" with no
      // heartbeat until the next start.
      const released = this.queue.releaseInterrupted(job.id, `its result could not be recorded: ${(error as Error).message}`);
      this.events.changed(released);
      return released;
    }
    if (finished === null) return null;
    this.events.changed(finished);
    if (finished.pipelineId !== null && finished.step !== null && finished.status !== 'queued') {
      // The steps after this one changed with it: the next was queued, or the rest were skipped.
      const after = finished.step;
      for (const step of this.queue.getPipeline(finished.pipelineId).jobs) {
        if (step.step !== null && step.step > after && step.status !== 'waiting') this.events.changed(step);
      }
    }
    return finished;
  }
}
