import { resolve, type Session } from '@loadout/kernel';
import { TaskStore } from '@loadout/tasks';
import { inject, injectable } from 'tsyringe';
import { type Job, JobQueue, type Pipeline } from './JobQueue.js';
import { JobWorkers } from './JobWorkers.js';
import { checkRunnable } from './TaskRunner.js';

/** One step of a pipeline as a caller asks for it: the task's folder name, and its input when it has its own. */
export interface PipelineStepRequest {
  readonly task: string;
  /** Left out, the step gets the previous step's output (the first step gets `{}`). */
  readonly input?: unknown;
}

/**
 * The one way a run is queued, whoever asks (HTTP, MCP): the task is resolved in the caller's
 * session through `getTaskByDirName` and checked runnable before anything is stored, the job keeps
 * the task's `dirName`, and the workers are woken.
 */
@injectable()
export class JobScheduler {
  constructor(
    @inject(JobQueue) private readonly queue: JobQueue,
    @inject(JobWorkers) private readonly workers: JobWorkers,
  ) {}

  scheduleRun(session: Session, dirName: string, input: unknown): Job {
    const task = resolve(session.container, TaskStore).getTaskByDirName(dirName);
    checkRunnable(task);
    const job = this.queue.enqueue({ taskDirName: task.dirName, project: session.project, input, maxAttempts: 1 + task.retries });
    this.workers.wake();
    return job;
  }

  /** Every step is resolved before anything is stored: one bad step queues nothing. */
  schedulePipeline(session: Session, steps: readonly PipelineStepRequest[]): Pipeline {
    const store = resolve(session.container, TaskStore);
    const resolved = steps.map((step) => {
      const task = store.getTaskByDirName(step.task);
      checkRunnable(task);
      return { taskDirName: task.dirName, hasInput: 'input' in step, input: step.input, maxAttempts: 1 + task.retries };
    });
    const pipeline = this.queue.enqueuePipeline(session.project, resolved);
    this.workers.wake();
    return pipeline;
  }
}
