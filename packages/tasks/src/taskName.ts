import { TaskNameInvalidError } from './TaskErrors.js';

/** The longest task folder name accepted. */
export const MAX_TASK_NAME = 128;

/**
 * Checks a caller-supplied task folder name before it is joined onto any root: not empty, not `.`
 * or `..`, no `/`, `\` or NUL, and not longer than {@link MAX_TASK_NAME}.
 */
export function assertTaskName(dirName: string): void {
  if (dirName.length === 0) throw new TaskNameInvalidError('the name is empty');
  if (dirName === '.' || dirName === '..') throw new TaskNameInvalidError(`"${dirName}" is not a folder name`);
  if (/[/\\\0]/.test(dirName)) throw new TaskNameInvalidError('a name may not hold "/", "\\" or NUL');
  if (dirName.length > MAX_TASK_NAME) throw new TaskNameInvalidError(`longer than ${MAX_TASK_NAME} characters`);
}

/** A file name for an implementation: one plain name inside the task folder. */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !/[/\\\0]/.test(name) && name !== '.' && name !== '..' && !name.startsWith('.');
}
