import { trackedFs } from './ReadLog.js';

/**
 * What tells one process apart from a later one that got the same pid: on Linux, its start time in
 * clock ticks since boot (field 22 of `/proc/<pid>/stat`). Null where `/proc` is not available or
 * the process is gone.
 */
export function processStartTime(pid: number): string | null {
  const stat = readStat(pid);
  return stat === null ? null : stat.start;
}

/** Whether the process is alive: a zombie (exited, not yet reaped) counts as gone. */
export function isProcessAlive(pid: number): boolean {
  const stat = readStat(pid);
  if (stat !== null) return stat.state !== 'Z' && stat.state !== 'X';
  if (trackedFs.existsSync('/proc/self/stat')) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readStat(pid: number): { state: string; start: string } | null {
  let text: string;
  try {
    text = trackedFs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[19];
  return state === undefined || start === undefined ? null : { state, start };
}
