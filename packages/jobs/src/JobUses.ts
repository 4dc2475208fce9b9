import { token } from '@loadout/kernel';
import type { UsageRecorder } from '@loadout/usage';
import type { Job, JobOrigin } from './JobQueue.js';

/**
 * Where a run ends up in the usage ledger: a job that ended (succeeded or failed) is one use of
 * its task, recorded by the process that ended it.
 */
export interface JobUses {
  /** A job's status changed in this process; an ended run not started by MCP is recorded once. */
  changed(job: Job): void;
  /** A run that is not a job (`loadout tasks run`) ended, started from `origin`. */
  ran(run: { readonly taskDirName: string; readonly project: string | null; readonly succeeded: boolean }, origin: JobOrigin): void;
  /** Writes what is waiting: a process that ends after its run (the command line) waits for this. */
  flush(): Promise<void>;
}
export const JobUses = token<JobUses>('jobs.uses');

/** The runtime a run is told as in the ledger: the face of Loadout it was started from, e.g. `loadout-http`. */
export function originRuntime(origin: JobOrigin): string {
  return `loadout-${origin}`;
}

/**
 * The {@link JobUses} over the ledger's recorder, when the usage module is loaded (`recorder`
 * answers null otherwise). A job started by an MCP tool call is left out: the MCP layer records
 * its call, with the client's own name, so it is never counted twice; a job whose origin is not
 * known (stored before origins were kept) is left out too. A pipeline's skipped steps never ran.
 */
export class LedgerJobUses implements JobUses {
  constructor(private readonly recorder: () => UsageRecorder | null) {}

  changed(job: Job): void {
    if (job.origin === null || job.origin === 'mcp' || (job.status !== 'succeeded' && job.status !== 'failed')) return;
    this.ran({ taskDirName: job.taskDirName, project: job.project, succeeded: job.status === 'succeeded' }, job.origin);
  }

  ran(run: { taskDirName: string; project: string | null; succeeded: boolean }, origin: JobOrigin): void {
    this.recorder()?.record({
      runtime: originRuntime(origin),
      project: run.project,
      kind: 'task',
      name: run.taskDirName,
      server: null,
      event: run.succeeded ? 'invoked' : 'failed',
      session: null,
    });
  }

  async flush(): Promise<void> {
    await this.recorder()?.flush();
  }
}
