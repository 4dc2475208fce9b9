import fs from 'node:fs';

/** Whether `file` is a regular file once links are followed; false when it is anything else or cannot be looked at. */
export function isRegularFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The real path of `file`, or `file` itself when it cannot be resolved (it does not exist yet). */
export function realPathOrSame(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
