import { resolve, type Session } from '@loadout/kernel';
import { TaskStore } from '@loadout/tasks';
import type { FastifyInstance } from 'fastify';
import { RequestInvalidError } from '../ServerErrors.js';
import { checkRunnable } from '../TaskRunner.js';
import type { ApiContext } from './ApiContext.js';
import { NewTaskBody, parseRequest, ProjectQuery, RunBody, TaskParams, TaskPatchBody } from './requestSchemas.js';

/** Tasks: list, read, create, update, delete, and queue a run. */
export function registerTaskRoutes(app: FastifyInstance, api: ApiContext): void {
  const store = (session: Session): TaskStore => resolve(session.container, TaskStore);

  app.get('/api/tasks', async (request) => {
    const { project } = parseRequest(ProjectQuery, request.query, 'query');
    return api.withSession(project, (session) => [...store(session).listTasks()]);
  });

  app.post('/api/tasks', async (request, reply) => {
    const body = parseRequest(NewTaskBody, request.body, 'body');
    const project = oneProject(parseRequest(ProjectQuery, request.query, 'query').project, body.project);
    const record = await api.withSession(project, (session) =>
      store(session).createTask(
        body.dirName,
        {
          name: body.name,
          description: body.description,
          implementation: body.implementation,
          ...(body.body === undefined ? {} : { body: body.body }),
          ...(body.timeoutSeconds === undefined ? {} : { timeoutSeconds: body.timeoutSeconds }),
          ...(body.retries === undefined ? {} : { retries: body.retries }),
        },
        body.level ?? 'global',
      ),
    );
    return reply.code(201).send(record);
  });

  app.get('/api/tasks/:dirName', async (request) => {
    const { dirName } = parseRequest(TaskParams, request.params, 'path');
    const { project } = parseRequest(ProjectQuery, request.query, 'query');
    return api.withSession(project, (session) => store(session).getTaskByDirName(dirName));
  });

  app.put('/api/tasks/:dirName', async (request) => {
    const { dirName } = parseRequest(TaskParams, request.params, 'path');
    const { project } = parseRequest(ProjectQuery, request.query, 'query');
    const patch = parseRequest(TaskPatchBody, request.body, 'body');
    return api.withSession(project, (session) => store(session).updateTask(dirName, patch));
  });

  app.delete('/api/tasks/:dirName', async (request) => {
    const { dirName } = parseRequest(TaskParams, request.params, 'path');
    const { project } = parseRequest(ProjectQuery, request.query, 'query');
    return api.withSession(project, (session) => ({ deleted: store(session).deleteTask(dirName) }));
  });

  app.post('/api/tasks/:dirName/runs', async (request, reply) => {
    const { dirName } = parseRequest(TaskParams, request.params, 'path');
    const body = parseRequest(RunBody, request.body, 'body');
    const project = oneProject(parseRequest(ProjectQuery, request.query, 'query').project, body.project);
    const job = await api.withSession(project, (session) => {
      const task = store(session).getTaskByDirName(dirName);
      checkRunnable(task);
      return api.queue.enqueue({ taskDirName: task.dirName, project: session.project, input: body.input, maxAttempts: 1 + task.retries });
    });
    api.jobQueued();
    return reply.code(202).send({ job: { id: job.id, status: job.status } });
  });
}

/** The project a request names in its query or its body; naming two different ones is refused. */
export function oneProject(fromQuery: string | undefined, fromBody: string | null | undefined): string | null {
  if (fromQuery !== undefined && fromBody !== undefined && fromBody !== null && fromQuery !== fromBody) {
    throw new RequestInvalidError('the query and the body name different projects');
  }
  return fromQuery ?? fromBody ?? null;
}
