import { trackedFs } from './ReadLog.js';

/** Whether `file` is a regular file once links are followed; false when it is anything else or cannot be looked at. */
export function isRegularFile(file: string): boolean {
  try {
    return trackedFs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The real path of `file`, or `file` itself when it cannot be resolved (it does not exist yet). */
export function realPathOrSame(file: string): string {
  try {
    return trackedFs.realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * `dir` and its real path, once when they are the same: a folder a record names may be reached
 * through a link (a plugin's clone under a linked home), and a path below either spelling is the
 * folder's own.
 */
export function pathAndRealPath(dir: string): string[] {
  const real = realPathOrSame(dir);
  return real === dir ? [dir] : [dir, real];
}
