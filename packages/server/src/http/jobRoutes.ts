import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { JobEvent } from '../JobEvents.js';
import type { Job, JobStatus } from '../JobQueue.js';
import { resolve } from '@loadout/kernel';
import { TaskStore } from '@loadout/tasks';
import { checkRunnable } from '../TaskRunner.js';
import type { ApiContext } from './ApiContext.js';
import { openEventStream } from './eventStream.js';
import { IdParams, ListQuery, parseRequest, PipelineBody } from './requestSchemas.js';

const FINAL: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'skipped']);
const JobListQuery = ListQuery.extend({ status: z.enum(['waiting', 'queued', 'running', 'succeeded', 'failed', 'skipped']).optional() });

/** Jobs and pipelines: read them, follow a job's output live, queue a pipeline. */
export function registerJobRoutes(app: FastifyInstance, api: ApiContext): void {
  /** A job with the output its running attempt printed so far. */
  const withLiveOutput = (job: Job): Job => {
    if (job.status !== 'running') return job;
    const live = api.events.liveOutput(job.id);
    return live === undefined ? job : { ...job, output: live.stdout, stderr: live.stderr };
  };

  app.get('/api/jobs', async (request) => {
    const query = parseRequest(JobListQuery, request.query, 'query');
    return api.queue.list({ ...(query.limit === undefined ? {} : { limit: query.limit }), ...(query.status === undefined ? {} : { status: query.status }) }).map(withLiveOutput);
  });

  app.get('/api/jobs/:id', async (request) => {
    const { id } = parseRequest(IdParams, request.params, 'path');
    return withLiveOutput(api.queue.get(id));
  });

  /**
   * Server-Sent Events: `status` whenever the job's status changes, `output` chunks
   * (`{ stream, text }`) as the task prints them, then `end` with the finished job. A finished job
   * streams its stored output and ends at once.
   */
  app.get('/api/jobs/:id/stream', async (request, reply) => {
    const { id } = parseRequest(IdParams, request.params, 'path');
    api.queue.get(id); // a 404 before the stream opens
    const stream = openEventStream(request, reply, api.streams);
    const replayAndEnd = (job: Job): void => {
      if (job.output !== '') stream.send('output', { stream: 'stdout', text: job.output });
      if (job.stderr !== '') stream.send('output', { stream: 'stderr', text: job.stderr });
      stream.send('end', job);
      stream.close();
    };
    // Subscribing, reading the job and its live output happen in one synchronous step, so no
    // chunk is lost or sent twice in between.
    const unsubscribe = api.events.subscribe(id, (event: JobEvent) => {
      if (event.type === 'output') {
        stream.send('output', event.chunk);
        return;
      }
      stream.send('status', { id: event.job.id, status: event.job.status, attempts: event.job.attempts, error: event.job.error });
      if (FINAL.has(event.job.status)) {
        stream.send('end', event.job);
        stream.close();
      }
    });
    stream.onClose(unsubscribe);
    const current = api.queue.get(id);
    if (FINAL.has(current.status)) {
      replayAndEnd(current);
      return reply;
    }
    stream.send('status', { id: current.id, status: current.status, attempts: current.attempts, error: current.error });
    const live = api.events.liveOutput(id);
    if (live !== undefined) {
      if (live.stdout !== '') stream.send('output', { stream: 'stdout', text: live.stdout });
      if (live.stderr !== '') stream.send('output', { stream: 'stderr', text: live.stderr });
    }
    return reply;
  });

  app.post('/api/pipelines', async (request, reply) => {
    const body = parseRequest(PipelineBody, request.body, 'body');
    // Every step is resolved before anything is stored: one bad step queues nothing.
    const pipeline = await api.withSession(body.project, (session) => {
      const store = resolve(session.container, TaskStore);
      const steps = body.steps.map((step) => {
        const task = store.getTaskByDirName(step.task);
        checkRunnable(task);
        return { taskDirName: task.dirName, hasInput: 'input' in step, input: step.input, maxAttempts: 1 + task.retries };
      });
      return api.queue.enqueuePipeline(session.project, steps);
    });
    api.jobQueued();
    return reply.code(202).send({ pipeline: { id: pipeline.id, status: pipeline.status } });
  });

  app.get('/api/pipelines/:id', async (request) => {
    const { id } = parseRequest(IdParams, request.params, 'path');
    const pipeline = api.queue.getPipeline(id);
    return { ...pipeline, jobs: pipeline.jobs.map(withLiveOutput) };
  });
}
