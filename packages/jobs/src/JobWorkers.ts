import { randomUUID } from 'node:crypto';
import { isLoadoutError, processStartTime, token } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { JobEvents } from './JobEvents.js';
import { type Job, type JobOutcome, JobQueue } from './JobQueue.js';
import { stopOrphanGroup } from './processGroup.js';
import { describeFailure, TaskExecution } from './TaskExecution.js';

export interface JobWorkerSettings {
  /** How many jobs run at once. */
  readonly count: number;
  /** The delay before the first retry; each further retry waits twice as long (at most 5 minutes). */
  readonly retryBaseMs: number;
  /** How often an idle worker looks for due jobs even when nothing woke it. */
  readonly pollMs: number;
  readonly heartbeatMs: number;
  readonly log?: (line: string) => void;
}

export const DEFAULT_JOB_WORKER_SETTINGS: JobWorkerSettings = { count: 2, retryBaseMs: 1000, pollMs: 1000, heartbeatMs: 5000 };

/**
 * What the process that serves wants of its workers (`loadout serve --workers N`, tests): registered
 * over the defaults before the server starts.
 */
export const JobWorkerOptions = token<Partial<JobWorkerSettings>>('jobs.workerOptions');

/** Why a job that was running when its server stopped is not running any more. */
export const SERVER_STOPPED_REASON = 'server stopped while running';
const MAX_RETRY_DELAY_MS = 5 * 60 * 1000;

/**
 * The workers that take jobs from the queue and run them. One set per server process; the server
 * holds the data folder's lock, so a job left `running` by anyone else belongs to a dead server.
 */
@injectable()
export class JobWorkers {
  /** Names this process in `claimed_by`, so a job it did not claim is never finished by it. */
  readonly instanceId = randomUUID();
  private settings: JobWorkerSettings = DEFAULT_JOB_WORKER_SETTINGS;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly active = new Map<number, { controller: AbortController; workerId: string }>();
  private waiters: (() => void)[] = [];
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(TaskExecution) private readonly execution: TaskExecution,
    @inject(JobEvents) private readonly events: JobEvents,
  ) {}

  /**
   * Settles the jobs a dead server left running: stops the process each one started (when it is
   * still there), then queues the job again while it has attempts left, else fails it with the
   * reason. Run before {@link start}, while holding the data folder's lock.
   */
  async recover(): Promise<Job[]> {
    const settled: Job[] = [];
    for (const job of this.queue.listRunning()) {
      const stopped = job.process === null ? true : await stopOrphanGroup(job.process.pid, job.process.start);
      const released = stopped
        ? this.queue.releaseInterrupted(job.id, SERVER_STOPPED_REASON)
        : this.queue.releaseInterrupted(job.id, `${SERVER_STOPPED_REASON}, and its process ${job.process?.pid ?? ''} could not be stopped`, false);
      this.events.changed(released);
      settled.push(released);
    }
    return settled;
  }

  start(settings: Partial<JobWorkerSettings> = {}): void {
    if (this.running) return;
    this.settings = { ...DEFAULT_JOB_WORKER_SETTINGS, ...settings };
    this.running = true;
    this.loops = Array.from({ length: Math.max(1, this.settings.count) }, (_, index) => this.loop(`${this.instanceId}/${index + 1}`));
    this.heartbeat = setInterval(() => this.beat(), this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Tells idle workers that a job may be due now. */
  wake(): void {
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
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.wake();
    for (const { controller } of this.active.values()) controller.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(workerId: string): Promise<void> {
    while (this.running) {
      try {
        const job = this.queue.claim(workerId);
        if (job === null) await this.idle();
        else await this.runJob(job, workerId);
      } catch (error) {
        this.settings.log?.(`worker ${workerId}: ${(error as Error).message}`);
        await this.idle();
      }
    }
  }

  private idle(): Promise<void> {
    const due = this.queue.nextDueAt();
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

  private async runJob(job: Job, workerId: string): Promise<void> {
    const controller = new AbortController();
    this.active.set(job.id, { controller, workerId });
    this.events.started(job);
    let outcome: JobOutcome;
    try {
      const result = await this.execution.execute({
        taskDirName: job.taskDirName,
        project: job.project,
        input: job.input,
        signal: controller.signal,
        onOutput: (chunk) => this.events.output(job.id, chunk),
        onSpawn: (pid) => this.queue.recordProcess(job.id, workerId, pid, processStartTime(pid)),
        context: { jobId: job.id, ...(job.pipelineId === null ? {} : { pipelineId: job.pipelineId, step: job.step }) },
      });
      if (result.interrupted) {
        this.events.changed(this.queue.releaseInterrupted(job.id, SERVER_STOPPED_REASON));
        return;
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
    } finally {
      this.active.delete(job.id);
    }
    let finished: Job | null;
    try {
      finished = this.queue.finish(job.id, workerId, outcome, this.retryDelay(job.attempts));
    } catch (error) {
      // The result could not be stored: hand the job back rather than leave it "running" with no
      // heartbeat until the next start.
      this.events.changed(this.queue.releaseInterrupted(job.id, `its result could not be recorded: ${(error as Error).message}`));
      this.wake();
      return;
    }
    if (finished === null) return;
    this.events.changed(finished);
    if (finished.pipelineId !== null && finished.step !== null && finished.status !== 'queued') {
      // The steps after this one changed with it: the next was queued, or the rest were skipped.
      const after = finished.step;
      for (const step of this.queue.getPipeline(finished.pipelineId).jobs) {
        if (step.step !== null && step.step > after && step.status !== 'waiting') this.events.changed(step);
      }
    }
    this.wake();
  }

  private retryDelay(attempt: number): number {
    return Math.min(MAX_RETRY_DELAY_MS, this.settings.retryBaseMs * 2 ** Math.max(0, attempt - 1));
  }

  private beat(): void {
    const byWorker = new Map<string, number[]>();
    for (const [id, { workerId }] of this.active) byWorker.set(workerId, [...(byWorker.get(workerId) ?? []), id]);
    for (const [workerId, ids] of byWorker) this.queue.heartbeat(workerId, ids);
  }
}
