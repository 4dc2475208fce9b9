import { createHash } from 'node:crypto';

/**
 * A tool name every client and model API takes as is: 1-64 ASCII letters, digits, `_` and `-`,
 * not starting or ending with `-`. Stricter than MCP's own rule (which also allows `.` and 128
 * characters) because clients put the name in front of model APIs that allow less.
 */
const PORTABLE = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9_])?$/;
const MAX_LENGTH = 64;

/**
 * The tool name of a task, from its folder name alone, so it stays the same whatever other tasks
 * come and go. A folder name that already is a portable tool name is used as is; any other is
 * folded to one (accents dropped, other characters to `_`) and given `_` and 8 hex digits of a
 * hash of the folder name, so two folder names that fold alike still get different names.
 *
 * @param hexDigits longer hashes, for the rare fold that equals another task's plain name
 */
export function toolNameFor(dirName: string, hexDigits = 8): string {
  return PORTABLE.test(dirName) ? dirName : suffixedName(dirName, hexDigits);
}

/** `dirName` folded to a portable name and given `_` and `hexDigits` hex digits of a hash of the folder name. */
function suffixedName(dirName: string, hexDigits: number): string {
  const hash = createHash('sha256').update(dirName).digest('hex').slice(0, hexDigits);
  const folded = dirName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, MAX_LENGTH - hexDigits - 1)
    .replace(/-+$/, '');
  return `${folded === '' ? 'task' : folded}_${hash}`;
}

/** What a tool name is made from: the task's folder name, and whose the task is. */
export interface ToolNameSource {
  readonly dirName: string;
  /** The plugin the task comes from, or null for the owner's or the project's own. */
  readonly plugin: string | null;
  readonly level: string;
}

/**
 * Who keeps a tool name two tasks would share: the owner's own tasks first, then the project's,
 * then plugins'. A plugin chooses its folder names, so it could otherwise pick the name the owner's
 * task is known by (a folder named like the owner's folded name) and push the owner's aside.
 */
function precedence(task: ToolNameSource): number {
  if (task.plugin !== null) return 2;
  return task.level === 'project' ? 1 : 0;
}

/**
 * Names for every task of a session, folder name → tool name. Folder names are unique
 * case-insensitively in a session, so two tasks can want one name only when one name is folded.
 * Names are given by precedence (the owner's, the project's, then plugins'), plain names before
 * folded ones within each: whoever comes later and finds its name taken gets a hash (a longer one
 * for a folded name) until it is unique. So the owner's tool is named as `toolNameFor` says
 * whatever a plugin's folders are called, and a task of the same precedence is never renamed by
 * another's fold.
 */
export function assignToolNames(tasks: readonly ToolNameSource[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const ordered = tasks
    .map((task) => ({ task, rank: precedence(task) * 2 + (PORTABLE.test(task.dirName) ? 0 : 1) }))
    .sort((a, b) => a.rank - b.rank || (a.task.dirName < b.task.dirName ? -1 : a.task.dirName > b.task.dirName ? 1 : 0));
  for (const { task } of ordered) {
    const { dirName } = task;
    let name = toolNameFor(dirName);
    for (let digits = 8; taken.has(name) && digits <= 32; digits += 8) name = suffixedName(dirName, digits);
    names.set(dirName, name);
    taken.add(name);
  }
  return names;
}
