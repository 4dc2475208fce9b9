export { type Job, JobQueue, type JobStatus, type Pipeline } from './JobQueue.js';
export { JobScheduler } from './JobScheduler.js';
export { configureJobWorkers, jobsModule } from './jobsModule.js';
export { NotificationInbox, type StoredNotification } from './NotificationInbox.js';
export { describeFailure, TaskExecution } from './TaskExecution.js';
