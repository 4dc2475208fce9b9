import { ConflictError, InvalidInputError, LoadoutError, NotFoundError, OperationFailedError } from '@loadout/kernel';

/** A request body, query or parameter that does not have the expected shape. */
export class RequestInvalidError extends InvalidInputError {
  constructor(message: string, code = 'REQUEST_INVALID') {
    super(code, message);
  }
}

/** A request that needs the server token and did not carry the right one. */
export class TokenRequiredError extends LoadoutError {
  readonly code = 'TOKEN_REQUIRED';
  readonly category = 'unauthorized' as const;
}

/**
 * A request whose `Host` or `Origin` is not this server: another web site (cross-site request) or
 * a DNS name rebound to the loopback address. Refused before anything is read or changed.
 */
export class ForeignOriginError extends LoadoutError {
  readonly category = 'forbidden' as const;
  constructor(
    readonly code: 'HOST_REFUSED' | 'ORIGIN_REFUSED',
    message: string,
  ) {
    super(message);
  }
}

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

/** Only one server may own a data folder: two would both claim and recover the same jobs. */
export class ServerAlreadyRunningError extends ConflictError {
  constructor(dataDir: string) {
    super('SERVER_ALREADY_RUNNING', `another Loadout server is already running on the data folder ${dataDir}`);
  }
}

/** The server could not start: the port is taken, the data folder cannot be locked, and so on. */
export class ServerStartError extends OperationFailedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERVER_START_FAILED', message, options);
  }
}
