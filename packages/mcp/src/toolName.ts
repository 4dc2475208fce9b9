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
  if (PORTABLE.test(dirName)) return dirName;
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

/**
 * Names for every task of a session, folder name → tool name. Folder names are unique
 * case-insensitively in a session, so plain names never collide; a folded name that happens to
 * equal another (plain or folded) takes a longer hash until it is unique.
 */
export function assignToolNames(dirNames: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const folded: string[] = [];
  for (const dirName of dirNames) {
    if (PORTABLE.test(dirName)) {
      names.set(dirName, dirName);
      taken.add(dirName);
    } else {
      folded.push(dirName);
    }
  }
  for (const dirName of [...folded].sort()) {
    let digits = 8;
    let name = toolNameFor(dirName, digits);
    while (taken.has(name) && digits < 32) {
      digits += 8;
      name = toolNameFor(dirName, digits);
    }
    names.set(dirName, name);
    taken.add(name);
  }
  return names;
}
