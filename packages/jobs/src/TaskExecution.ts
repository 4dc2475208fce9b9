import { resolve, type Session, SessionLoader, token } from '@loadout/kernel';
import { checkTaskInput, TASK_KIND, TaskInputSchemas, type TaskRecord, TaskStore } from '@loadout/tasks';
import { inject, injectable } from 'tsyringe';
import { NotificationInbox, type NotificationEvent } from './NotificationInbox.js';
import { NotificationUndeclaredError } from './JobErrors.js';
import type { RunDeadline } from './RunDeadline.js';
import { type OutputChunk, TaskRunner, type TaskRunResult } from './TaskRunner.js';

export interface TaskExecutionRequest {
  readonly taskDirName: string;
  readonly project: string | null;
  readonly input?: unknown;
  readonly signal?: AbortSignal;
  readonly onOutput?: (chunk: OutputChunk) => void;
  readonly onSpawn?: (pid: number) => void;
  /** When the task's process group is killed unless it moves first (a job's lease, see `TaskRunOptions.deadline`). */
  readonly deadline?: RunDeadline;
  /** The folder the task writes files for its caller into (see `TaskRunOptions.outputDir`). */
  readonly outputDir?: string;
  /** Added to the run's notifications, e.g. `{ jobId }`. */
  readonly context?: Readonly<Record<string, unknown>>;
  /** The task as its caller just resolved it, when the run starts at once: no session is opened for it. */
  readonly resolved?: ResolvedTask;
}

/**
 * A task resolved through `getTaskByDirName` in a session whose stamp its caller checked just now,
 * and that session, which the caller keeps open until the run has ended. A run that starts at
 * once (a tool call over stdio) uses both rather than open a session and read the task again, and
 * so does the first attempt of a tool call's job that a server's worker claims while the stamp
 * has not moved (checked right before the run); a retry never gets one.
 */
export interface ResolvedTask {
  readonly session: Session;
  readonly task: TaskRecord;
}

export interface TaskExecutionResult extends TaskRunResult {
  readonly task: TaskRecord;
  /** The project the session resolved (its real path), or null. */
  readonly project: string | null;
}

/**
 * One run of a task, as every runner path does it (the job workers and `loadout tasks run`): open a
 * session, resolve the task through `getTaskByDirName` (or take both as the caller just resolved
 * them, see {@link ResolvedTask}), announce the start, run the record's implementation, announce
 * the end.
 */
export interface TaskExecution {
  execute(request: TaskExecutionRequest): Promise<TaskExecutionResult>;
}
export const TaskExecution = token<TaskExecution>('jobs.taskExecution');

/** The notifications a run emits; `capabilities/notifications/loadout-runs.json` declares them. */
export const RUN_NOTIFICATIONS = {
  started: 'task.run.started',
  succeeded: 'task.run.succeeded',
  failed: 'task.run.failed',
} as const;

@injectable()
export class SessionTaskExecution implements TaskExecution {
  /** Each distinct input schema compiled once for this execution's life. */
  private readonly schemas = new TaskInputSchemas();

  constructor(
    @inject(SessionLoader) private readonly loader: SessionLoader,
    @inject(TaskRunner) private readonly runner: TaskRunner,
    @inject(NotificationInbox) private readonly inbox: NotificationInbox,
  ) {}

  async execute(request: TaskExecutionRequest): Promise<TaskExecutionResult> {
    // Only what a run needs is read: its task, and the catalogues that declare its notifications
    // (few, small). A run does not pay for every skill in the workspace.
    const resolved = request.resolved;
    const session = resolved?.session ?? (await this.loader.open({ project: request.project, kinds: [TASK_KIND, 'notification'] }));
    try {
      const task = resolved?.task ?? resolve(session.container, TaskStore).getTaskByDirName(request.taskDirName);
      // The same contract the scheduler holds a submission to: here it covers `loadout tasks run`
      // and a pipeline step fed the previous step's output. Refused before anything is announced.
      checkTaskInput(this.schemas, task, request.input);
      const data = { ...request.context, taskDirName: task.dirName, plugin: task.plugin };
      await this.announce(session, { notification: RUN_NOTIFICATIONS.started, message: `${task.name} started`, data });
      let result: TaskRunResult;
      try {
        result = await this.runner.run(task, {
          input: request.input,
          project: session.project,
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(request.onOutput === undefined ? {} : { onOutput: request.onOutput }),
          ...(request.onSpawn === undefined ? {} : { onSpawn: request.onSpawn }),
          ...(request.deadline === undefined ? {} : { deadline: request.deadline }),
          ...(request.outputDir === undefined ? {} : { outputDir: request.outputDir }),
        });
      } catch (error) {
        await this.announce(session, {
          notification: RUN_NOTIFICATIONS.failed,
          message: `${task.name} could not start: ${(error as Error).message}`,
          data,
        });
        throw error;
      }
      await this.announce(
        session,
        result.succeeded
          ? { notification: RUN_NOTIFICATIONS.succeeded, message: `${task.name} succeeded`, data: { ...data, exitCode: result.exitCode } }
          : {
              notification: RUN_NOTIFICATIONS.failed,
              message: `${task.name} failed: ${describeFailure(result)}`,
              data: { ...data, exitCode: result.exitCode },
            },
      );
      return { ...result, task, project: session.project };
    } finally {
      if (resolved === undefined) session.dispose();
    }
  }

  /** A run goes on when the owner switched the run notifications off: that refusal is the point. */
  private async announce(session: Session, event: NotificationEvent): Promise<void> {
    try {
      await this.inbox.emit(session, event);
    } catch (error) {
      if (!(error instanceof NotificationUndeclaredError)) throw error;
    }
  }
}

/** Why a run failed, in a few words. */
export function describeFailure(result: TaskRunResult): string {
  if (result.interrupted) return 'stopped because the server stopped';
  if (result.timedOut) return `timed out after ${Math.round(result.durationMs / 1000)} s`;
  if (result.exitCode === null) return `ended by ${result.signal ?? 'a signal'}`;
  return `exit status ${result.exitCode}`;
}
