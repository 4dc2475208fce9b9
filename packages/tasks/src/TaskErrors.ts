import { ConflictError, InvalidInputError, NotFoundError } from '@loadout/kernel';

/** A task folder name that could leave its root or is not a name at all. */
export class TaskNameInvalidError extends InvalidInputError {
  constructor(reason: string) {
    super('TASK_NAME_INVALID', `invalid task name: ${reason}`);
  }
}

export class TaskNotFoundError extends NotFoundError {
  constructor(dirName: string) {
    super('TASK_NOT_FOUND', `no task named "${dirName}" in this session`);
  }
}

/** A plugin's task is read-only: the next plugin update would overwrite any edit. */
export class PluginTaskReadOnlyError extends ConflictError {
  constructor(
    dirName: string,
    readonly plugin: string,
    action: 'update' | 'delete',
  ) {
    super('TASK_READ_ONLY', `task "${dirName}" is provided by plugin ${plugin} and cannot be ${action === 'update' ? 'updated' : 'deleted'}; it is read-only`);
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
