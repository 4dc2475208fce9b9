import { isProcessAlive, processStartTime } from '@loadout/files';

/** Sends `signal` to every process of the group `pgid`; a group that no longer exists is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Stops a task's process group left behind by a server that died, and waits until its leader is
 * gone. `start` guards against pid reuse: a live process whose start time differs is someone
 * else's and is left alone. Returns false when the process would not die in time.
 */
export async function stopOrphanGroup(pid: number, start: string | null, timeoutMs = 5000): Promise<boolean> {
  const current = processStartTime(pid);
  if (current !== null && start !== null && current !== start) return true;
  signalGroup(pid, 'SIGKILL');
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    const now = processStartTime(pid);
    if (start !== null && now !== null && now !== start) break;
    if (Date.now() > deadline) return false;
    await new Promise((done) => setTimeout(done, 20));
  }
  return true;
}
