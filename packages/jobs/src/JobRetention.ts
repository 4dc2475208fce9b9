import { token } from '@loadout/kernel';

// A module of its own, behind the package's `./retention` entry, so that `loadout serve --help` can
// print the defaults without loading the job queue (and the database it imports).

/** How long finished jobs are kept. Queued, waiting and running jobs are never pruned. */
export interface JobRetention {
  /** The newest this many finished jobs are kept. */
  readonly keepJobs: number;
  /** A job that finished more than this many days ago goes, even among the newest. */
  readonly keepDays: number;
}
export const JobRetention = token<JobRetention>('jobs.retention');

export const DEFAULT_JOB_RETENTION: JobRetention = { keepJobs: 1000, keepDays: 30 };
