import { Migrations, PostgresMigrations } from '@loadout/db';
import { contribute, type LoadoutModule, type Registration } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import { DEFAULT_JOB_RETENTION, JobRetention } from './JobRetention.js';
import { jobsMigrations, jobsPostgresMigrations } from './jobsMigrations.js';

/**
 * Registers the job queue and inbox tables and the retention setting at once (a session's
 * database is migrated with every table); the runner, the queue, the workers, the inbox and the
 * server's services are the module's later part (jobsRunModule.ts: they bring the task runner and
 * `child_process`), which a session never loads; their HTTP routes load with the server only.
 */
const registerTables: Registration = (container) => {
  for (const migration of jobsMigrations) contribute(container, Migrations, migration);
  for (const migration of jobsPostgresMigrations) contribute(container, PostgresMigrations, migration);
  container.register(JobRetention, { useValue: DEFAULT_JOB_RETENTION });
};

/** The job queue: its tables now, the rest once its code is loaded (see registerTables), its routes in the server. */
export const jobsModule: LoadoutModule = {
  name: 'jobs',
  now: registerTables,
  later: async () => (await import('./jobsRunModule.js')).jobsRunModule,
  routes: async () => {
    const [{ jobRoutes }, { notificationRoutes }] = await Promise.all([import('./jobRoutes.js'), import('./notificationRoutes.js')]);
    return [...jobRoutes, ...notificationRoutes];
  },
};

/** Sets how long the server this process starts keeps finished jobs (`loadout serve --keep-jobs`). */
export function configureJobRetention(container: DependencyContainer, retention: Partial<JobRetention>): void {
  container.register(JobRetention, { useValue: { ...DEFAULT_JOB_RETENTION, ...retention } });
}
