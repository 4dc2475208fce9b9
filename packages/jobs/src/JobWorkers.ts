import { SqlDatabase } from '@loadout/db';
import { token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { JobAttempts, retryDelayAfter } from './JobAttempts.js';
import { claimedByAnotherLiveProcess, newClaimantId } from './JobClaimant.js';
import { JobEvents } from './JobEvents.js';
import { JOBS_CHANNEL, type Job, JobQueue } from './JobQueue.js';
import { stopOrphanGroup } from './processGroup.js';
import { monotonicNow } from './RunDeadline.js';
import type { ResolvedTask } from './TaskExecution.js';

export interface JobWorkerSettings {
  /** How many jobs run at once. */
  readonly count: number;
  /** The delay before the first retry; each further retry waits twice as long (at most 5 minutes). */
  readonly retryBaseMs: number;
  /** How often an idle worker looks for due jobs even when nothing woke it. */
  readonly pollMs: number;
  readonly log?: (line: string) => void;
}

export const DEFAULT_JOB_WORKER_SETTINGS: JobWorkerSettings = { count: 2, retryBaseMs: 1000, pollMs: 1000 };

/**
 * What the process that serves wants of its workers (`loadout serve --workers N`, tests): registered
 * over the defaults before the server starts.
 */
export const JobWorkerOptions = token<Partial<JobWorkerSettings>>('jobs.workerOptions');

/** Why a job that was running when its server stopped is not running any more. */
export const SERVER_STOPPED_REASON = 'server stopped while running';
/** The error of a job its owner stopped (`POST /api/jobs/:id/cancel`, `loadout jobs cancel`). */
export const JOB_CANCELLED_BY_OWNER = 'cancelled by the owner';

/** A caller's session and the task resolved in it, offered for the first attempt of its job (see {@link JobWorkers.offer}). */
interface Offer {
  readonly resolved: ResolvedTask;
  readonly stillCurrent: () => Promise<boolean>;
  /** Set once a worker took the offer: settles when that worker no longer uses the session. */
  taken: Promise<void> | null;
}

/** A job one of this process's workers is running, and how to stop it. */
interface ActiveJob {
  readonly controller: AbortController;
  /** Set when the job was cancelled rather than interrupted by a stopping server. */
  cancelledBecause: string | null;
}

/**
 * The workers that take jobs from the queue and run them. One set per server process. On SQLite the
 * server holds the data folder's lock, so a job left `running` by anyone else belongs to a dead
 * server — unless its claimant is another live process (a `loadout mcp` running its own job). On a
 * shared PostgreSQL queue other hosts' servers run jobs too: a dead server's jobs come back
 * through their lapsed leases, and a job announced on any host wakes the idle workers of all.
 */
@injectable()
export class JobWorkers {
  /** Names this process in `claimed_by`, so a job it did not claim is never finished by it. */
  readonly instanceId = newClaimantId();
  private settings: JobWorkerSettings = DEFAULT_JOB_WORKER_SETTINGS;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly active = new Map<number, ActiveJob>();
  private readonly offers = new Map<number, Offer>();
  private waiters: (() => void)[] = [];
  private wakes = 0;
  private stopListening: (() => void) | null = null;

  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(JobAttempts) private readonly attempts: JobAttempts,
    @inject(JobEvents) private readonly events: JobEvents,
    @inject(SqlDatabase) private readonly db: SqlDatabase,
  ) {}

  /** Whether this process's workers are taking jobs (the server is serving). */
  get isRunning(): boolean {
    return this.running;
  }

  /**
   * Settles the jobs a dead server (or a dead `loadout mcp`) left running: stops the process each
   * one started (when it is still there), then queues the job again while it has attempts left,
   * else fails it with the reason; these are returned. A retry held for a dead claimant is handed
   * to any worker. Jobs claimed by another live process are left to it. Run before
   * {@link start}, while holding the data folder's lock. Settles nothing on a queue other hosts
   * share: their jobs are not this host's to judge, and a dead server's return when its lease ends.
   */
  async recover(): Promise<Job[]> {
    const settled: Job[] = [];
    if (this.queue.sharedByHosts) return settled;
    for (const held of await this.queue.listHeld()) {
      if (!claimedByAnotherLiveProcess(held.claimedBy)) await this.queue.unhold(held.id);
    }
    for (const job of await this.queue.listRunning()) {
      if (claimedByAnotherLiveProcess(job.claimedBy)) continue;
      const stopped = job.process === null ? true : await stopOrphanGroup(job.process.pid, job.process.start);
      const released = stopped
        ? await this.queue.releaseInterrupted(job.id, SERVER_STOPPED_REASON)
        : await this.queue.releaseInterrupted(
            job.id,
            `${SERVER_STOPPED_REASON}, and its process ${job.process?.pid ?? ''} could not be stopped`,
            {
              mayRetry: false,
            },
          );
      this.events.changed(released);
      settled.push(released);
    }
    return settled;
  }

  async start(settings: Partial<JobWorkerSettings> = {}): Promise<void> {
    if (this.running) return;
    this.settings = { ...DEFAULT_JOB_WORKER_SETTINGS, ...settings };
    this.running = true;
    this.stopListening = await this.db.listen(JOBS_CHANNEL, () => this.wake());
    this.loops = Array.from({ length: Math.max(1, this.settings.count) }, (_, index) => this.loop(`${this.instanceId}/${index + 1}`));
  }

  /**
   * Stops a job for good (the reason, e.g. {@link JOB_CANCELLED_BY_OWNER}): a job one of these workers runs has its process group stopped and is
   * failed with `reason` (no retry); a job not yet started is failed at once. Returns false when
   * the job is neither (finished, or run by another process).
   */
  async cancel(id: number, reason: string): Promise<boolean> {
    const active = this.active.get(id);
    if (active !== undefined) {
      active.cancelledBecause = reason;
      active.controller.abort(reason);
      return true;
    }
    const cancelled = await this.queue.cancelPending(id, reason);
    if (cancelled === null) return false;
    this.events.changed(cancelled);
    return true;
  }

  /**
   * Offers the session a caller just resolved the task of job `jobId` in, for its first attempt: a
   * worker of this process that claims the job takes the offer once, and runs the attempt in that
   * session when `stillCurrent` answers true right before it (else it opens one, as for every
   * other job). A retry never gets it. Returns the withdrawal, which settles once no worker uses
   * the session any more; the caller keeps the session open until then.
   */
  offer(jobId: number, resolved: ResolvedTask, stillCurrent: () => Promise<boolean>): () => Promise<void> {
    const offer: Offer = { resolved, stillCurrent, taken: null };
    this.offers.set(jobId, offer);
    return async () => {
      if (this.offers.get(jobId) === offer) this.offers.delete(jobId);
      await offer.taken;
    };
  }

  /** Tells idle workers that a job may be due now. */
  wake(): void {
    this.wakes += 1;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  /**
   * Stops taking jobs, stops the tasks that are running (their jobs are queued again while
   * attempts remain, else failed) and waits for the workers to finish.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopListening?.();
    this.stopListening = null;
    this.wake();
    for (const { controller } of this.active.values()) controller.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(workerId: string): Promise<void> {
    while (this.running) {
      try {
        const claimedAt = monotonicNow();
        const job = await this.queue.claim(workerId);
        if (job === null) await this.idle();
        else await this.runJob(job, workerId, claimedAt);
      } catch (error) {
        this.settings.log?.(`worker ${workerId}: ${(error as Error).message}`);
        await this.idle();
      }
    }
  }

  private async idle(): Promise<void> {
    const seen = this.wakes;
    const due = await this.queue.nextDueAt().catch(() => null);
    // Woken while it asked: something may be due already.
    if (!this.running || this.wakes !== seen) return;
    const delay = Math.max(5, Math.min(this.settings.pollMs, due === null ? Infinity : due - Date.now()));
    return new Promise((done) => {
      const timer = setTimeout(finish, delay);
      function finish(): void {
        clearTimeout(timer);
        done();
      }
      this.waiters.push(finish);
    });
  }

  private async runJob(job: Job, workerId: string, claimedAt: number): Promise<void> {
    const active: ActiveJob = { controller: new AbortController(), cancelledBecause: null };
    this.active.set(job.id, active);
    const offer = this.offers.get(job.id);
    this.offers.delete(job.id);
    let letGo = (): void => undefined;
    if (offer !== undefined) offer.taken = new Promise((done) => (letGo = done));
    try {
      const resolved =
        offer !== undefined && job.attempts === 1 && (await offer.stillCurrent().catch(() => false)) ? offer.resolved : undefined;
      await this.attempts.run(job, workerId, {
        signal: active.controller.signal,
        interruption: () =>
          active.cancelledBecause === null
            ? { reason: SERVER_STOPPED_REASON, mayRetry: true }
            : { reason: active.cancelledBecause, mayRetry: false },
        retryDelayMs: retryDelayAfter(job.attempts, this.settings.retryBaseMs),
        claimedAt,
        ...(resolved === undefined ? {} : { resolved }),
      });
    } finally {
      letGo();
      this.active.delete(job.id);
    }
    this.wake();
  }
}
