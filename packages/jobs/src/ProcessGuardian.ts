import { type ChildProcess, spawn } from 'node:child_process';
import { injectable } from 'tsyringe';

/**
 * What the guardian runs: it reads `+<pgid>` and `-<pgid>` lines, and when its input ends (the
 * process that started it is gone, however it died) it kills every group still listed. It ignores
 * the signals a terminal sends its owner's group, and reads nothing else.
 */
const GUARDIAN_SCRIPT = `
const groups = new Set();
let pending = '';
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  pending += text;
  for (let end = pending.indexOf('\\n'); end >= 0; end = pending.indexOf('\\n')) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const pgid = Number(line.slice(1));
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    if (line[0] === '+') groups.add(pgid); else groups.delete(pgid);
  }
});
process.stdin.on('end', () => {
  for (const pgid of groups) { try { process.kill(-pgid, 'SIGKILL'); } catch {} }
  process.exit(0);
});
`;

/**
 * Makes the task processes this process starts die with it. A task runs in its own process group
 * (so a stop reaches all of it), which also means it would outlive a server killed with SIGKILL
 * and keep running while another server, after the lease, runs the same job again. One small
 * guardian process per process holds the list of live groups on a pipe; when the pipe closes
 * because its owner died, it kills them. Started on the first task, never kept alive for itself.
 */
@injectable()
export class ProcessGuardian {
  private guardian: ChildProcess | null = null;

  /** Lists the group `pgid` until the returned function is called (when the task has ended). */
  guard(pgid: number): () => void {
    const guardian = this.started();
    guardian.stdin?.write(`+${pgid}\n`);
    return () => {
      if (guardian.exitCode === null && guardian.stdin?.writable === true) guardian.stdin.write(`-${pgid}\n`);
    };
  }

  private started(): ChildProcess {
    if (this.guardian !== null && this.guardian.exitCode === null) return this.guardian;
    const guardian = spawn(process.execPath, ['-e', GUARDIAN_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    guardian.on('error', () => undefined);
    guardian.stdin?.on('error', () => undefined);
    // Neither the guardian nor its pipe keep this process alive.
    guardian.unref();
    (guardian.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.guardian = guardian;
    return guardian;
  }
}
