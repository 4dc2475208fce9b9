import { type ServerService, ServerServices } from '@loadout/api';
import { contribute, type Registration, resolve } from '@loadout/kernel';
import { UsageRecorder } from '@loadout/usage';
import { type DependencyContainer, instanceCachingFactory, Lifecycle } from 'tsyringe';
import { InlineJobRunner } from './InlineJobRunner.js';
import { JobAttempts } from './JobAttempts.js';
import { JobEventHub, JobEvents } from './JobEvents.js';
import { JobNotFoundError } from './JobErrors.js';
import { JobOutputFolders } from './JobOutputFolders.js';
import { JobLease, jobLeaseFromEnvironment, JobQueue, SqlJobQueue } from './JobQueue.js';
import { JobRetention } from './JobRetention.js';
import { JobScheduler } from './JobScheduler.js';
import { JobUses, LedgerJobUses } from './JobUses.js';
import { JobWorkerOptions, JobWorkers, type JobWorkerSettings } from './JobWorkers.js';
import { NotificationInbox, SqlNotificationInbox } from './NotificationInbox.js';
import { ProcessGuardian } from './ProcessGuardian.js';
import { sweepAbandonedRuns } from './runProcesses.js';
import { SessionTaskExecution, TaskExecution } from './TaskExecution.js';
import { DEFAULT_TASK_RUNNER_SETTINGS, ProcessTaskRunner, TaskRunner, TaskRunnerSettings } from './TaskRunner.js';

/**
 * The later part of {@link jobsModule}: the runner, the queue, the workers, the inbox, and the
 * workers and the retention as services of the server (they run only while it serves). Worker
 * options set before this part was registered ({@link configureJobWorkers}) are kept.
 */
export const jobsRunModule: Registration = (container) => {
  container.register(JobLease, { useFactory: () => jobLeaseFromEnvironment() });
  container.register(TaskRunnerSettings, { useValue: DEFAULT_TASK_RUNNER_SETTINGS });
  if (!container.isRegistered(JobWorkerOptions)) container.register(JobWorkerOptions, { useValue: {} });
  container.register(ProcessGuardian, { useClass: ProcessGuardian }, { lifecycle: Lifecycle.Singleton });
  container.register(TaskRunner, { useClass: ProcessTaskRunner }, { lifecycle: Lifecycle.Singleton });
  container.register(JobQueue, { useClass: SqlJobQueue }, { lifecycle: Lifecycle.Singleton });
  container.register(JobEvents, { useClass: JobEventHub }, { lifecycle: Lifecycle.Singleton });
  // Runs not started by MCP are counted in the usage ledger at their end, when the ledger is loaded.
  container.register(JobUses, {
    useFactory: instanceCachingFactory(
      (c) => new LedgerJobUses(() => (c.isRegistered(UsageRecorder, true) ? resolve(c, UsageRecorder) : null)),
    ),
  });
  container.register(NotificationInbox, { useClass: SqlNotificationInbox }, { lifecycle: Lifecycle.Singleton });
  container.register(TaskExecution, { useClass: SessionTaskExecution }, { lifecycle: Lifecycle.Singleton });
  container.register(JobOutputFolders, { useClass: JobOutputFolders }, { lifecycle: Lifecycle.Singleton });
  container.register(JobAttempts, { useClass: JobAttempts }, { lifecycle: Lifecycle.Singleton });
  container.register(JobWorkers, { useClass: JobWorkers }, { lifecycle: Lifecycle.Singleton });
  container.register(InlineJobRunner, { useClass: InlineJobRunner }, { lifecycle: Lifecycle.Singleton });
  container.register(JobScheduler, { useClass: JobScheduler }, { lifecycle: Lifecycle.Singleton });
  contribute(container, ServerServices, workersService(container));
  contribute(container, ServerServices, retentionService(container));
};

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
      const queue = resolve(container, JobQueue);
      const outputs = container.resolve(JobOutputFolders);
      // A pruned job's output folder goes with it.
      const prune = async (): Promise<number> => {
        const pruned = await queue.prune(retention);
        await outputs.removeGone((jobId) =>
          queue.get(jobId).then(
            () => true,
            (error: unknown) => !(error instanceof JobNotFoundError),
          ),
        );
        return pruned;
      };
      const pruned = await prune();
      timer = setInterval(() => {
        prune().catch((error: unknown) => log(`pruning finished jobs: ${(error as Error).message}`));
      }, PRUNE_INTERVAL_MS);
      timer.unref();
      return {
        lines:
          pruned === 0
            ? []
            : [
                `pruned ${pruned} finished job${pruned === 1 ? '' : 's'} (keeping the newest ${retention.keepJobs}, none older than ${retention.keepDays} days)`,
              ],
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
