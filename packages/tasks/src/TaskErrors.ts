import { ConflictError, InvalidInputError, NotFoundError, OperationFailedError } from '@loadout/files';

/** A task folder name that could leave its root or is not a name at all. */
export class TaskNameInvalidError extends InvalidInputError {
  constructor(reason: string) {
    super('TASK_NAME_INVALID', `invalid task name: ${reason}`);
  }
}

/**
 * No task of that name is on in the session. When a folder of that name is there but a scan
 * refuses it (a link out of its root, a malformed `TASK.md` …), `reason` says why and `cause` is
 * the refusal.
 */
export class TaskNotFoundError extends NotFoundError {
  constructor(dirName: string, refusal?: { readonly message: string }) {
    super('TASK_NOT_FOUND', `no task named "${dirName}" in this session${refusal === undefined ? '' : `: ${refusal.message}`}`, {
      cause: refusal,
    });
  }
}

/**
 * A task (or the tasks folder) the file system would not let Loadout read, e.g. for lack of
 * permission: not the same as a task that is not there. `cause` is the file system's error.
 */
export class TaskUnreadableError extends OperationFailedError {
  constructor(dirName: string, failure: { readonly message: string }) {
    super('TASK_UNREADABLE', `task "${dirName}" cannot be read: ${failure.message}`, { cause: failure });
  }
}

/** A run's input that the task's declared input schema refuses (or a schema that cannot be applied): nothing ran. */
export class TaskRunInputRefusedError extends InvalidInputError {
  constructor(dirName: string, reason: string) {
    super('TASK_INPUT_INVALID', `task "${dirName}" refuses this input: ${reason}`);
  }
}

/** A field a client sent back that only the task's place decides (`dirName`, `level`, `path` …), with another value. */
export class TaskFieldReadOnlyError extends InvalidInputError {
  constructor(field: string) {
    super('TASK_FIELD_READ_ONLY', `${field} cannot be changed here; send it back as read, or leave it out`);
  }
}

/** A plugin's task is read-only: the next plugin update would overwrite any edit. */
export class PluginTaskReadOnlyError extends ConflictError {
  constructor(
    dirName: string,
    readonly plugin: string,
    action: 'update' | 'delete',
  ) {
    super(
      'TASK_READ_ONLY',
      `task "${dirName}" is provided by plugin ${plugin} and cannot be ${action === 'update' ? 'updated' : 'deleted'}; it is read-only`,
    );
  }
}

export class TaskExistsError extends ConflictError {
  constructor(dirName: string) {
    super('TASK_EXISTS', `a task named "${dirName}" already exists at that level`);
  }
}

export class TaskInputInvalidError extends InvalidInputError {
  constructor(message: string) {
    super('TASK_INVALID', message);
  }
}
