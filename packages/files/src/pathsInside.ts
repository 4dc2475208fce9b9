import fs from 'node:fs';
import path from 'node:path';
import { type FileReader, nodeFileReader } from './FileReader.js';
import { InvalidInputError, OperationFailedError } from './LoadoutError.js';

/**
 * A document that could not be read as data. `code` says why; the message names the file.
 * Scans turn it into a per-document diagnostic and go on with the next document.
 */
export class DocumentRefusedError extends InvalidInputError {}

/**
 * A document or folder the file system would not let Loadout read (permission denied, an I/O
 * error): not the document's fault, so it is kept apart from a refusal and carries the file
 * system's error as its `cause`. Scans report it as a diagnostic on that entry, like a refusal.
 */
export class DocumentUnreadableError extends OperationFailedError {}

/** The file system's error as a {@link DocumentUnreadableError} naming `what`. */
export function unreadable(code: string, what: string, error: unknown): DocumentUnreadableError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new DocumentUnreadableError(code, `${what}: cannot be read (${reason})`, { cause: error });
}

/**
 * `file`'s path relative to `root` when it lies beneath it (the common case, without the cost of
 * `path.relative`), else `path.relative`'s answer.
 */
export function relativeInside(root: string, file: string): string {
  return file.length > root.length + 1 && file.startsWith(root) && file[root.length] === path.sep
    ? file.slice(root.length + 1)
    : path.relative(root, file);
}

/** Whether `target` is `root` or lies beneath it. Both must be absolute and normalized. */
export function isInside(root: string, target: string): boolean {
  // Both already as `path.resolve` gives them (a plan asks this of every skill against every root):
  // `path.relative` would answer the rest after `root/`, so a prefix test answers the same
  // (a first step starting `..` included) without resolving both paths again.
  if (isNormalAbsolute(root) && isNormalAbsolute(target)) {
    if (target === root) return true;
    const prefix = root === '/' ? root : `${root}/`;
    return target.startsWith(prefix) && !target.startsWith('..', prefix.length);
  }
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Flags every file Loadout reads from data it does not own is opened with: never through a final
 * link, never waiting on a FIFO's writer. `fstat` of what was opened then says whether to read it.
 */
export const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** What a file that is not a regular one is, in words. */
export function describeFileType(stats: fs.Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSymbolicLink()) return 'a link';
  return 'not a regular file';
}

/** Where a path under a root leads once its links are followed (see {@link resolveInside}). */
export type RealPathInside =
  | { readonly kind: 'missing' }
  | { readonly kind: 'outside' }
  | { readonly kind: 'loop' }
  | { readonly kind: 'inside'; readonly real: string };

/**
 * The one rule for where a path under `root` leads: its real path (one `realpath` system call)
 * when that stays inside the root's real path, else `outside`; `missing` when nothing is there (or
 * a folder on the way is a file); `loop` when its links lead back to themselves. A loop is never
 * taken for a missing file: every caller refuses it by name (`LINK_LOOP` for documents, a
 * plugin's part "not a regular file"), where the plugins' reader used to skip it in silence.
 */
export function resolveInside(root: string, file: string, files: FileReader = nodeFileReader): RealPathInside {
  let real: string;
  let realRoot: string;
  try {
    real = files.realpathNative(file);
    realRoot = files.realpathNative(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ELOOP') return { kind: 'loop' };
    throw error;
  }
  return isInside(realRoot, real) ? { kind: 'inside', real } : { kind: 'outside' };
}

/**
 * The real path of a link under `root` ({@link resolveInside}), or a refusal when it leads outside
 * (`PATH_OUTSIDE_ROOT`) or back to itself (`LINK_LOOP`). Null when the target does not exist.
 */
export function realpathInside(root: string, file: string, files: FileReader = nodeFileReader): string | null {
  const found = resolveInside(root, file, files);
  if (found.kind === 'inside') return found.real;
  if (found.kind === 'missing') return null;
  if (found.kind === 'loop') {
    throw new DocumentRefusedError(
      'LINK_LOOP',
      `${path.relative(root, file) || '.'}: is a link that leads back to itself (a loop); it is not read`,
    );
  }
  throw new DocumentRefusedError(
    'PATH_OUTSIDE_ROOT',
    `${path.relative(root, file) || '.'}: is a link that leads outside its root; it is not read`,
  );
}

/** A step `path.resolve` would change on POSIX: an empty, `.` or `..` segment, or a trailing separator. */
const ODD_STEP = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** Whether `path.resolve(target)` is `target` itself: POSIX, absolute, with no step it would change. */
export function isNormalAbsolute(target: string): boolean {
  return path.sep === '/' && target.startsWith('/') && !ODD_STEP.test(target);
}
