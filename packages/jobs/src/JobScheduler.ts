import { resolve, type Session } from '@loadout/kernel';
import { checkTaskInput, TaskInputSchemas, type TaskRecord, TaskStore } from '@loadout/tasks';
import { inject, injectable } from 'tsyringe';
import { InlineJobRunner } from './InlineJobRunner.js';
import { JobEvents } from './JobEvents.js';
import { JobOutputFolders } from './JobOutputFolders.js';
import { type Job, type JobOrigin, JobQueue, type JobStatus, type NewJob, type Pipeline } from './JobQueue.js';
import { JobWorkers } from './JobWorkers.js';
import { checkRunnable, type OutputChunk } from './TaskRunner.js';

/** One step of a pipeline as a caller asks for it: the task's folder name, and its input when it has its own. */
export interface PipelineStepRequest {
  readonly task: string;
  /** Left out, the step gets the previous step's output (the first step gets `{}`). */
  readonly input?: unknown;
}

/** What a caller that waits for its run wants to hear while it runs. */
export interface RunToEndOptions {
  /** Aborting stops the run for good: its process group is stopped and the job fails with `cancelReason`. */
  readonly signal?: AbortSignal;
  /** Recorded on the job when `signal` aborts, e.g. `cancelled by the MCP client`. */
  readonly cancelReason?: string;
  /** Called once with the stored job, before the task starts. */
  readonly onQueued?: (job: Job) => void;
  /** The task's output as it prints it. */
  readonly onOutput?: (chunk: OutputChunk) => void;
  /**
   * Whether the caller's session still shows the workspace as it is now (its change stamp has not
   * moved since the session was checked). Given, one of this process's workers that claims the job
   * runs its first attempt in that session when this answers true right before the run, rather
   * than open a session and read the task again.
   */
  readonly stillCurrent?: () => Promise<boolean>;
  /** Where the run was started; a caller that waits for its run is an MCP tool call unless it says otherwise. */
  readonly origin?: JobOrigin;
}

/** A job {@link JobScheduler.runToEnd} waited for, with the folder its task's files for the caller are in. */
export type FinishedRun = Job & {
  /** The job's output folder (`JobOutputFolders`): what its last attempt wrote there, for the caller to check and hand over. */
  readonly outputFolder: string;
};

const FINISHED: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'skipped']);

/**
 * The one way a run is queued, whoever asks (HTTP, MCP), each job keeping where it was started: the task is resolved in the caller's
 * session through `getTaskByDirName` and checked runnable, and its input checked against the
 * task's declared input schema, before anything is stored, the job keeps
 * the task's `dirName`, and the workers are woken.
 */
@injectable()
export class JobScheduler {
  /** Each distinct input schema compiled once for this scheduler's life. */
  private readonly schemas = new TaskInputSchemas();

  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(JobWorkers) private readonly workers: JobWorkers,
    @inject(JobEvents) private readonly events: JobEvents,
    @inject(InlineJobRunner) private readonly inline: InlineJobRunner,
    @inject(JobOutputFolders) private readonly outputs: JobOutputFolders,
  ) {}

  async scheduleRun(session: Session, dirName: string, input: unknown, origin: JobOrigin): Promise<Job> {
    const job = await this.queue.enqueue(this.newJob(session, dirName, input, origin).request);
    this.workers.wake();
    return job;
  }

  /**
   * Runs a task and waits for its job to finish, for a caller that answers with the result (an
   * MCP tool call). Exactly one job row is stored either way: where this process's workers run
   * (the server) the job is queued for them; where there are none (`loadout mcp` over stdio) this
   * process runs that one job itself, in `session` and with the task just resolved in it (the
   * caller keeps `session` open until this returns; a worker may use both too, see
   * {@link RunToEndOptions.stillCurrent}, and this returns only once it let go). Returns the
   * finished job, with where its files are.
   */
  async runToEnd(session: Session, dirName: string, input: unknown, options: RunToEndOptions = {}): Promise<FinishedRun> {
    const job = await this.waitForRun(session, dirName, input, options);
    return { ...job, outputFolder: this.outputs.folderOf(job.id) };
  }

  private async waitForRun(session: Session, dirName: string, input: unknown, options: RunToEndOptions): Promise<Job> {
    const { request, task } = this.newJob(session, dirName, input, options.origin ?? 'mcp');
    const signal = options.signal ?? new AbortController().signal;
    const cancelReason = options.cancelReason ?? 'cancelled by the caller';
    let unsubscribe: () => void = () => undefined;
    let withdraw: () => Promise<void> = async () => undefined;
    const follow = (job: Job): void => {
      unsubscribe = this.events.subscribe(job.id, (event) => {
        if (event.type === 'output') options.onOutput?.(event.chunk);
      });
      options.onQueued?.(job);
    };
    try {
      if (!this.workers.isRunning)
        return await this.inline.run(request, { signal, cancelReason, onStored: follow, resolved: { session, task } });
      const job = await this.queue.enqueue(request);
      follow(job);
      if (options.stillCurrent !== undefined) withdraw = this.workers.offer(job.id, { session, task }, options.stillCurrent);
      const finished = new Promise<Job>((done) => {
        const stop = this.events.subscribe(job.id, (event) => {
          if (event.type === 'status' && FINISHED.has(event.job.status)) {
            stop();
            done(event.job);
          }
        });
      });
      const cancel = (): void => void this.workers.cancel(job.id, cancelReason).catch(() => undefined);
      if (signal.aborted) cancel();
      else signal.addEventListener('abort', cancel, { once: true });
      this.workers.wake();
      try {
        return await finished;
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    } finally {
      unsubscribe();
      await withdraw();
    }
  }

  /** The task resolved in the caller's session and checked runnable, and the job to store for it. */
  private newJob(session: Session, dirName: string, input: unknown, origin: JobOrigin): { request: NewJob; task: TaskRecord } {
    const task = resolve(session.container, TaskStore).getTaskByDirName(dirName);
    checkRunnable(task);
    checkTaskInput(this.schemas, task, input);
    return { request: { taskDirName: task.dirName, project: session.project, origin, input, maxAttempts: 1 + task.retries }, task };
  }

  /** Every step is resolved before anything is stored: one bad step queues nothing. */
  async schedulePipeline(session: Session, steps: readonly PipelineStepRequest[], origin: JobOrigin): Promise<Pipeline> {
    const store = resolve(session.container, TaskStore);
    const resolved = steps.map((step) => {
      const task = store.getTaskByDirName(step.task);
      checkRunnable(task);
      // A step with its own input is checked now; one fed the previous step's output, as it starts.
      if ('input' in step || step === steps[0]) checkTaskInput(this.schemas, task, step.input);
      return { taskDirName: task.dirName, hasInput: 'input' in step, input: step.input, maxAttempts: 1 + task.retries };
    });
    const pipeline = await this.queue.enqueuePipeline(session.project, resolved, origin);
    this.workers.wake();
    return pipeline;
  }
}
