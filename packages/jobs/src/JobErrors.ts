import { ConflictError, NotFoundError } from '@loadout/files';

export class JobNotFoundError extends NotFoundError {
  constructor(id: number) {
    super('JOB_NOT_FOUND', `no job with id ${id}`);
  }
}

export class PipelineNotFoundError extends NotFoundError {
  constructor(id: number) {
    super('PIPELINE_NOT_FOUND', `no pipeline with id ${id}`);
  }
}

export class NotificationNotFoundError extends NotFoundError {
  constructor(id: number) {
    super('NOTIFICATION_NOT_FOUND', `no notification with id ${id}`);
  }
}

/** A task whose implementation Loadout cannot run: no interpreter for its extension, or no file. */
export class TaskNotRunnableError extends ConflictError {
  constructor(dirName: string, reason: string) {
    super('TASK_NOT_RUNNABLE', `task "${dirName}" cannot be run: ${reason}`);
  }
}

/**
 * An event that no enabled notification catalogue of the session declares. Refused so the inbox
 * only ever holds notifications the owner can see described, and can switch off.
 */
export class NotificationUndeclaredError extends ConflictError {
  constructor(notification: string) {
    super('NOTIFICATION_UNDECLARED', `notification "${notification}" is not declared by any enabled notification catalogue`);
  }
}

/** A job that has already finished, or runs in a process this one cannot stop: nothing was changed. */
export class JobNotCancellableError extends ConflictError {
  constructor(id: number, status: string) {
    super(
      'JOB_NOT_CANCELLABLE',
      status === 'running'
        ? `job ${id} is running in another server, which alone can stop it`
        : `job ${id} has already ended (${status}); nothing to cancel`,
    );
  }
}
