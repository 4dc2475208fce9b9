import { TaskNameInvalidError } from './TaskErrors.js';

/** The longest task folder name accepted. */
export const MAX_TASK_NAME = 128;

/** A line break, a tab or any other control character: none may be part of a name. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/**
 * The one rule for a task's folder name, used to create, to look up (and so to run) and to list:
 * not empty, not longer than {@link MAX_TASK_NAME}, not hidden (a name starting with `.` is not a
 * task: scans skip it, so it can be neither listed nor switched off, and must not run either),
 * and no `/`, `\`, NUL, line break or other control character. Returns why a name breaks it, or
 * null when it is a task name.
 */
export function taskNameProblem(dirName: string): string | null {
  if (dirName.length === 0) return 'the name is empty';
  if (dirName === '.' || dirName === '..') return `"${dirName}" is not a folder name`;
  if (dirName.startsWith('.')) return 'a name may not start with "." (hidden folders are not tasks)';
  if (/[/\\\0]/.test(dirName)) return 'a name may not hold "/", "\\" or NUL';
  if (CONTROL.test(dirName)) return 'a name may not hold a line break or another control character';
  if (dirName.length > MAX_TASK_NAME) return `longer than ${MAX_TASK_NAME} characters`;
  return null;
}

/** Checks a caller-supplied task folder name ({@link taskNameProblem}) before it is joined onto any root. */
export function assertTaskName(dirName: string): void {
  const problem = taskNameProblem(dirName);
  if (problem !== null) throw new TaskNameInvalidError(problem);
}

/**
 * A file name for an implementation: one plain name inside the task folder, not hidden, with no
 * line break or other control character.
 */
export function isPlainFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !/[/\\\0]/.test(name) && !CONTROL.test(name) && !name.startsWith('.');
}

/** Whether a name as written in a task's frontmatter holds a line break or another control character. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}
