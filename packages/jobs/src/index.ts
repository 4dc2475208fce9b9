export { type Job, JobQueue, type JobStatus, type JobSummary, type Pipeline } from './JobQueue.js';
export { JobScheduler } from './JobScheduler.js';
export type { JobListQuery, RunBody } from './jobRoutes.js';
export type { InboxQuery } from './notificationRoutes.js';
export { configureJobRetention, jobsModule } from './jobsModule.js';
export { configureJobWorkers } from './jobsRunModule.js';
export { NotificationInbox, type StoredNotification } from './NotificationInbox.js';
export { describeFailure, TaskExecution } from './TaskExecution.js';
export { interpreterFor } from './TaskRunner.js';
