import { inject, injectable } from 'tsyringe';
import { JobAttempts, retryDelayAfter } from './JobAttempts.js';
import { newClaimantId } from './JobClaimant.js';
import { JobEvents } from './JobEvents.js';
import { type Job, JobQueue, type NewJob } from './JobQueue.js';
import { monotonicNow } from './RunDeadline.js';
import { DEFAULT_JOB_WORKER_SETTINGS, JobWorkerOptions, type JobWorkerSettings } from './JobWorkers.js';
import type { ResolvedTask } from './TaskExecution.js';

/**
 * Runs a job in the process that asked for it, when that process has no workers (`loadout mcp`
 * over stdio): the job is stored already claimed by this process, so no server's worker can take
 * it, and every attempt is run here through the same {@link JobAttempts} the workers use. A
 * failed attempt with retries left is held for this process and tried again after the same
 * backoff. It takes no other job and recovers nothing: that is the server's business, and the
 * server leaves a job alone while the process that claimed it is alive.
 */
@injectable()
export class InlineJobRunner {
  private readonly claimant = `${newClaimantId()}/inline`;

  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(JobAttempts) private readonly attempts: JobAttempts,
    @inject(JobEvents) private readonly events: JobEvents,
    @inject(JobWorkerOptions) private readonly options: Partial<JobWorkerSettings>,
  ) {}

  /**
   * Stores `request` as a running job and runs it to its end. Aborting `signal` stops the task's
   * process group (or the wait for a retry) and fails the job with `cancelReason`.
   *
   * @param onStored called with the job as soon as its row exists, before the task starts
   * @param resolved the task as the caller just resolved it: the first attempt, which starts at
   *   once, runs it in the caller's session; a retry, after its wait, reads it again
   */
  async run(
    request: NewJob,
    options: { signal: AbortSignal; cancelReason: string; onStored?: (job: Job) => void; resolved?: ResolvedTask },
  ): Promise<Job> {
    const baseMs = this.options.retryBaseMs ?? DEFAULT_JOB_WORKER_SETTINGS.retryBaseMs;
    let claimedAt = monotonicNow();
    let job = await this.queue.enqueueClaimed(request, this.claimant);
    options.onStored?.(job);
    let resolved = options.resolved;
    for (;;) {
      const delay = retryDelayAfter(job.attempts, baseMs);
      const after = await this.attempts.run(job, this.claimant, {
        signal: options.signal,
        interruption: () => ({ reason: options.cancelReason, mayRetry: false }),
        retryDelayMs: delay,
        holdRetry: true,
        claimedAt,
        ...(resolved === undefined ? {} : { resolved }),
      });
      resolved = undefined;
      if (after === null || after.status !== 'queued') return after ?? (await this.queue.get(job.id));
      await sleep(delay, options.signal);
      claimedAt = monotonicNow();
      const next = options.signal.aborted ? null : await this.queue.claimById(job.id, this.claimant, Date.now() + 5);
      if (next === null) {
        const cancelled = await this.queue.cancelPending(job.id, options.cancelReason);
        if (cancelled !== null) this.events.changed(cancelled);
        return cancelled ?? (await this.queue.get(job.id));
      }
      job = next;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) {
      done();
      return;
    }
    const finish = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      done();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
  });
}
