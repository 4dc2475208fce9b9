export { type Job, JobQueue, type JobStatus, type JobSummary, type Pipeline } from './JobQueue.js';
export { JobScheduler } from './JobScheduler.js';
export { configureJobRetention, jobsModule } from './jobsModule.js';
export { configureJobWorkers } from './jobsRunModule.js';
export { NotificationInbox, type StoredNotification } from './NotificationInbox.js';
export { describeFailure, TaskExecution } from './TaskExecution.js';
export { interpreterFor } from './TaskRunner.js';
export { JOB_CANCELLED_BY_OWNER, JobWorkers } from './JobWorkers.js';
export { JobNotCancellableError } from './JobErrors.js';
