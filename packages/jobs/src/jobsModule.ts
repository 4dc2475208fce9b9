import { HttpRoutes, type ServerService, ServerServices } from '@loadout/api';
import { Migrations, PostgresMigrations } from '@loadout/db';
import { contribute, contributeLater, type LoadoutModule, resolve } from '@loadout/kernel';
import { type DependencyContainer, Lifecycle } from 'tsyringe';
import { InlineJobRunner } from './InlineJobRunner.js';
import { JobAttempts } from './JobAttempts.js';
import { JobEventHub, JobEvents } from './JobEvents.js';
import { JobLease, jobLeaseFromEnvironment, JobQueue, SqlJobQueue } from './JobQueue.js';
import { DEFAULT_JOB_RETENTION, JobRetention } from './JobRetention.js';
import { JobScheduler } from './JobScheduler.js';
import { jobsMigrations, jobsPostgresMigrations } from './jobsMigrations.js';
import { JobWorkerOptions, JobWorkers, type JobWorkerSettings } from './JobWorkers.js';
import { NotificationInbox, SqlNotificationInbox } from './NotificationInbox.js';
import { ProcessGuardian } from './ProcessGuardian.js';
import { sweepAbandonedRuns } from './runProcesses.js';
import { SessionTaskExecution, TaskExecution } from './TaskExecution.js';
import { DEFAULT_TASK_RUNNER_SETTINGS, ProcessTaskRunner, TaskRunner, TaskRunnerSettings } from './TaskRunner.js';

/**
 * Registers the job queue and inbox tables, the runner, the queue, the workers, the inbox, their
 * HTTP routes, and the workers as a service of the server (they run only while it serves).
 */
export const jobsModule: LoadoutModule = (container) => {
  for (const migration of jobsMigrations) contribute(container, Migrations, migration);
  for (const migration of jobsPostgresMigrations) contribute(container, PostgresMigrations, migration);
  container.register(JobLease, { useFactory: () => jobLeaseFromEnvironment() });
  container.register(TaskRunnerSettings, { useValue: DEFAULT_TASK_RUNNER_SETTINGS });
  container.register(JobWorkerOptions, { useValue: {} });
  container.register(JobRetention, { useValue: DEFAULT_JOB_RETENTION });
  container.register(ProcessGuardian, { useClass: ProcessGuardian }, { lifecycle: Lifecycle.Singleton });
  container.register(TaskRunner, { useClass: ProcessTaskRunner }, { lifecycle: Lifecycle.Singleton });
  container.register(JobQueue, { useClass: SqlJobQueue }, { lifecycle: Lifecycle.Singleton });
  container.register(JobEvents, { useClass: JobEventHub }, { lifecycle: Lifecycle.Singleton });
  container.register(NotificationInbox, { useClass: SqlNotificationInbox }, { lifecycle: Lifecycle.Singleton });
  container.register(TaskExecution, { useClass: SessionTaskExecution }, { lifecycle: Lifecycle.Singleton });
  container.register(JobAttempts, { useClass: JobAttempts }, { lifecycle: Lifecycle.Singleton });
  container.register(JobWorkers, { useClass: JobWorkers }, { lifecycle: Lifecycle.Singleton });
  container.register(InlineJobRunner, { useClass: InlineJobRunner }, { lifecycle: Lifecycle.Singleton });
  container.register(JobScheduler, { useClass: JobScheduler }, { lifecycle: Lifecycle.Singleton });
  // The routes load with the server, never in a one-shot command.
  contributeLater(container, async () => {
    const [{ jobRoutes }, { notificationRoutes }] = await Promise.all([import('./jobRoutes.js'), import('./notificationRoutes.js')]);
    return (c) => {
      for (const route of [...jobRoutes, ...notificationRoutes]) contribute(c, HttpRoutes, route);
    };
  });
  contribute(container, ServerServices, workersService(container));
  contribute(container, ServerServices, retentionService(container));
};

/** Sets how long the server this process starts keeps finished jobs (`loadout serve --keep-jobs`). */
export function configureJobRetention(container: DependencyContainer, retention: Partial<JobRetention>): void {
  container.register(JobRetention, { useValue: { ...DEFAULT_JOB_RETENTION, ...retention } });
}

/** How often a serving process prunes finished jobs, besides once when it starts. */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Keeps the job table to the retention setting while the server serves: pruned when it starts and
 * every {@link PRUNE_INTERVAL_MS}. A failed prune is logged and tried again at the next interval.
 */
function retentionService(container: DependencyContainer): ServerService {
  let timer: NodeJS.Timeout | null = null;
  return {
    name: 'job-retention',
    start: async ({ log }) => {
      const retention = resolve(container, JobRetention);
      const prune = (): Promise<number> => resolve(container, JobQueue).prune(retention);
      const pruned = await prune();
      timer = setInterval(() => {
        prune().catch((error: unknown) => log(`pruning finished jobs: ${(error as Error).message}`));
      }, PRUNE_INTERVAL_MS);
      timer.unref();
      return {
        lines: pruned === 0 ? [] : [`pruned ${pruned} finished job${pruned === 1 ? '' : 's'} (keeping the newest ${retention.keepJobs}, none older than ${retention.keepDays} days)`],
        json: { jobRetention: { ...retention, pruned } },
      };
    },
    stop: async () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}

/** Sets how the workers of the server this process starts run (count, retry delay, polling). */
export function configureJobWorkers(container: DependencyContainer, options: Partial<JobWorkerSettings>): void {
  container.register(JobWorkerOptions, { useValue: options });
}

/**
 * The workers, for as long as the server serves: first the jobs a killed server left running are
 * settled (the server holds the data folder's lock, so they are nobody else's), then the workers
 * start taking jobs.
 */
function workersService(container: DependencyContainer): ServerService {
  return {
    name: 'jobs',
    start: async ({ log }) => {
      const workers = container.resolve(JobWorkers);
      const recovered = await workers.recover();
      // What runs of a killed server (or `loadout tasks run`) left: processes outside their
      // group, scratch folders.
      const abandoned = await sweepAbandonedRuns();
      await workers.start({ ...resolve(container, JobWorkerOptions), log });
      return {
        lines: [
          ...recovered.map((job) => `job ${job.id} (${job.taskDirName}) was running when the last server stopped: ${job.status}`),
          ...(abandoned.processes + abandoned.folders.length === 0
            ? []
            : [`removed what killed runs left: ${abandoned.processes} process(es), ${abandoned.folders.length} scratch folder(s)`]),
        ],
        json: {
          recovered: recovered.map((job) => ({ id: job.id, taskDirName: job.taskDirName, status: job.status, error: job.error })),
          abandonedRuns: { processes: abandoned.processes, scratchFolders: abandoned.folders.length },
        },
      };
    },
    stop: () => container.resolve(JobWorkers).stop(),
  };
}
