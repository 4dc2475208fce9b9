import { type ApiRoute, defineRoute, eventStream, IdParams, oneProject, ProjectQuery, projectPath, reply } from '@loadout/api';
import { TASK_KIND } from '@loadout/tasks';
import { z } from 'zod';
import { type JobEvent, JobEvents } from './JobEvents.js';
import { type Job, JobQueue, type JobStatus } from './JobQueue.js';
import { JobNotCancellableError } from './JobErrors.js';
import { JobScheduler } from './JobScheduler.js';
import { JOB_CANCELLED_BY_OWNER, JobWorkers } from './JobWorkers.js';

const FINAL: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'skipped']);
/** `GET /api/jobs?limit&status&task&before`: one page, newest first; `before` is the last id of the previous page. */
const JobListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  status: z.enum(['waiting', 'queued', 'running', 'succeeded', 'failed', 'skipped']).optional(),
  task: z.string().min(1).max(1024).optional(),
  before: z.coerce.number().int().min(1).optional(),
});
/** What `GET /api/jobs` and `POST /api/tasks/:dirName/runs` take, as a client writes them. */
export type JobListQuery = z.input<typeof JobListQuery>;
export type RunBody = z.input<typeof RunBody>;
const TaskParams = z.strictObject({ dirName: z.string().max(4096) });

/** `POST /api/tasks/:dirName/runs`: `input` is any JSON; left out, the task gets `{}`. */
const RunBody = z.strictObject({
  input: z.unknown().optional(),
  project: projectPath.nullable().optional(),
});

/** `POST /api/pipelines` */
const PipelineBody = z.strictObject({
  steps: z
    .array(z.strictObject({ task: z.string().min(1).max(1024), input: z.unknown().optional() }))
    .min(1)
    .max(50),
  project: projectPath.nullable().optional(),
});

const deps = { queue: JobQueue, events: JobEvents, scheduler: JobScheduler };

/** A job with the output its running attempt printed so far. */
function withLiveOutput(events: JobEvents, job: Job): Job {
  if (job.status !== 'running') return job;
  const live = events.liveOutput(job.id);
  return live === undefined ? job : { ...job, output: live.stdout, stderr: live.stderr };
}

/**
 * Runs, jobs and pipelines: queue a run or a pipeline, read jobs, follow a job's output live. Reads
 * of jobs need the token: they show what tasks printed.
 */
export const jobRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/api/tasks/:dirName/runs',
    access: 'token',
    deps,
    params: TaskParams,
    query: ProjectQuery,
    body: RunBody,
    handle: async ({ params, query, body }, { scheduler }, context) => {
      const project = oneProject(query.project, body.project);
      const job = await context.withSession(project, (session) => scheduler.scheduleRun(session, params.dirName, body.input, 'http'), {
        kinds: [TASK_KIND],
      });
      return reply(202, { job: { id: job.id, status: job.status } });
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/jobs',
    access: 'token',
    // Summaries only: each job's input and output are read one job at a time (`/api/jobs/:id`).
    deps,
    query: JobListQuery,
    handle: async ({ query: { limit, status, task, before } }, { queue }) => {
      return await queue.list({
        ...(limit === undefined ? {} : { limit }),
        ...(status === undefined ? {} : { status }),
        ...(task === undefined ? {} : { task }),
        ...(before === undefined ? {} : { before }),
      });
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/jobs/:id',
    access: 'token',
    deps,
    params: IdParams,
    handle: async ({ params }, { queue, events }) => withLiveOutput(events, await queue.get(params.id)),
  }),

  /**
   * Stops a job for good: a running one has its process group stopped, a queued or waiting one is
   * ended before it runs; either is failed with the reason "cancelled by the owner" and the rest
   * of its pipeline skipped. 202 once asked (a running job ends as its process group does); 409
   * for a job that has already ended.
   */
  defineRoute({
    method: 'POST',
    path: '/api/jobs/:id/cancel',
    access: 'token',
    deps: { queue: JobQueue, workers: JobWorkers },
    params: IdParams,
    handle: async ({ params }, { queue, workers }) => {
      const { id } = params;
      const before = await queue.get(id); // a 404 for a job that does not exist
      if (!(await workers.cancel(id, JOB_CANCELLED_BY_OWNER))) throw new JobNotCancellableError(id, (await queue.get(id)).status);
      const after = await queue.get(id);
      return reply(202, { job: { id, status: after.status, was: before.status } });
    },
  }),

  /**
   * Server-Sent Events: `status` whenever the job's status changes, `output` chunks
   * (`{ stream, text }`) as the task prints them, then `end` with the finished job. A finished job
   * streams its stored output and ends at once.
   */
  defineRoute({
    method: 'GET',
    path: '/api/jobs/:id/stream',
    access: 'token',
    deps,
    params: IdParams,
    handle: async ({ params: { id } }, { queue, events }) => {
      const first = await queue.get(id); // a 404 before the stream opens
      return eventStream((stream) => {
        let ended = false;
        const end = (job: Job): void => {
          if (ended) return;
          ended = true;
          stream.send('end', job);
          stream.close();
        };
        // Subscribing and reading the live output happen in one synchronous step, so no chunk is
        // lost or sent twice in between.
        const unsubscribe = events.subscribe(id, (event: JobEvent) => {
          if (ended) return;
          if (event.type === 'output') {
            stream.send('output', event.chunk);
            return;
          }
          stream.send('status', { id: event.job.id, status: event.job.status, attempts: event.job.attempts, error: event.job.error });
          if (FINAL.has(event.job.status)) end(event.job);
        });
        stream.onClose(unsubscribe);
        if (FINAL.has(first.status)) {
          if (first.output !== '') stream.send('output', { stream: 'stdout', text: first.output });
          if (first.stderr !== '') stream.send('output', { stream: 'stderr', text: first.stderr });
          end(first);
          return;
        }
        stream.send('status', { id: first.id, status: first.status, attempts: first.attempts, error: first.error });
        const live = events.liveOutput(id);
        if (live !== undefined) {
          if (live.stdout !== '') stream.send('output', { stream: 'stdout', text: live.stdout });
          if (live.stderr !== '') stream.send('output', { stream: 'stderr', text: live.stderr });
        }
        // The job may have finished between the first read and the subscription.
        void queue.get(id).then(
          (current) => {
            if (FINAL.has(current.status)) end(current);
          },
          () => undefined,
        );
      });
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/pipelines',
    access: 'token',
    deps,
    body: PipelineBody,
    handle: async ({ body }, { scheduler }, context) => {
      const pipeline = await context.withSession(body.project, (session) => scheduler.schedulePipeline(session, body.steps, 'http'), {
        kinds: [TASK_KIND],
      });
      return reply(202, { pipeline: { id: pipeline.id, status: pipeline.status } });
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/pipelines/:id',
    access: 'token',
    deps,
    params: IdParams,
    handle: async ({ params }, { queue, events }) => {
      const pipeline = await queue.getPipeline(params.id);
      return { ...pipeline, jobs: pipeline.jobs.map((job) => withLiveOutput(events, job)) };
    },
  }),
];
