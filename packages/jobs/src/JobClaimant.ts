import { randomUUID } from 'node:crypto';
import { isProcessAlive, processStartTime } from '@loadout/files';

/**
 * A name for whoever claims jobs in this process, written to `claimed_by`: a random part (so two
 * claimants of one process differ) and the process's pid and start time, so another process can
 * tell a live claimant from a dead one, e.g. `3f2a…@4242:98765`.
 */
export function newClaimantId(): string {
  return `${randomUUID()}@${process.pid}:${processStartTime(process.pid) ?? ''}`;
}

/**
 * Whether `claimedBy` names a claimant in another process that is still running. A server that
 * recovers jobs leaves those alone: they belong to a live `loadout mcp`, not to a dead server.
 * A name without a process part, this process, a dead process or a reused pid all answer false.
 */
export function claimedByAnotherLiveProcess(claimedBy: string | null): boolean {
  const match = claimedBy === null ? null : /@(\d+):([^/]*)/.exec(claimedBy);
  if (match === null) return false;
  const pid = Number(match[1]);
  if (pid === process.pid || !isProcessAlive(pid)) return false;
  const start = match[2] ?? '';
  const now = processStartTime(pid);
  return start === '' || now === null || now === start;
}
