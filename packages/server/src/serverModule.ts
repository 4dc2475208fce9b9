import { Migrations } from '@loadout/db';
import { contribute, type LoadoutModule } from '@loadout/kernel';
import { Lifecycle } from 'tsyringe';
import { capabilityRpcMethods } from './capabilityRpcMethods.js';
import { JobEventHub, JobEvents } from './JobEvents.js';
import { JobQueue, SqliteJobQueue } from './JobQueue.js';
import { levelsRpcMethods } from './levelsRpcMethods.js';
import { NotificationInbox, SqliteNotificationInbox } from './NotificationInbox.js';
import { RpcMethods } from './RpcMethod.js';
import { serverMigrations } from './serverMigrations.js';
import { stateRpcMethods } from './stateRpcMethods.js';
import { SessionTaskExecution, TaskExecution } from './TaskExecution.js';
import { DEFAULT_TASK_RUNNER_SETTINGS, ProcessTaskRunner, TaskRunner, TaskRunnerSettings } from './TaskRunner.js';

/**
 * Registers the job queue and notification inbox tables, the task runner, the inbox, and the
 * JSON-RPC methods this package answers. The HTTP server itself starts only in `startServer`.
 */
export const serverModule: LoadoutModule = (container) => {
  for (const migration of serverMigrations) contribute(container, Migrations, migration);
  container.register(TaskRunnerSettings, { useValue: DEFAULT_TASK_RUNNER_SETTINGS });
  container.register(TaskRunner, { useClass: ProcessTaskRunner }, { lifecycle: Lifecycle.Singleton });
  container.register(JobQueue, { useClass: SqliteJobQueue }, { lifecycle: Lifecycle.Singleton });
  container.register(JobEvents, { useClass: JobEventHub }, { lifecycle: Lifecycle.Singleton });
  container.register(NotificationInbox, { useClass: SqliteNotificationInbox }, { lifecycle: Lifecycle.Singleton });
  container.register(TaskExecution, { useClass: SessionTaskExecution }, { lifecycle: Lifecycle.Singleton });
  for (const method of capabilityRpcMethods) contribute(container, RpcMethods, method);
  for (const method of levelsRpcMethods) contribute(container, RpcMethods, method);
  for (const method of stateRpcMethods) contribute(container, RpcMethods, method);
};
