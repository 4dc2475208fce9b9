import { type ApiRoute, defineRoute, oneProject, parseRequest, ProjectQuery, projectPath, reply, type RouteContext } from '@loadout/api';
import { resolve, type Session } from '@loadout/kernel';
import { z } from 'zod';
import { TaskStore } from './TaskStore.js';

const implementation = z.strictObject({
  filename: z.string().min(1).max(255),
  content: z.string().max(1024 * 1024),
});

/** `POST /api/tasks` */
const NewTaskBody = z.strictObject({
  dirName: z.string().min(1).max(1024),
  name: z.string().min(1).max(1024),
  description: z.string().min(1).max(1024),
  implementation,
  body: z.string().max(1024 * 1024).optional(),
  level: z.enum(['global', 'project']).optional(),
  timeoutSeconds: z.number().positive().max(86_400).optional(),
  retries: z.number().int().min(0).max(10).optional(),
  project: projectPath.nullable().optional(),
});

/** `PUT /api/tasks/:dirName`: at least one field. */
const TaskPatchBody = z
  .strictObject({
    name: z.string().min(1).max(1024).optional(),
    description: z.string().min(1).max(1024).optional(),
    body: z.string().max(1024 * 1024).optional(),
    implementation: implementation.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'nothing to change: give name, description, body or implementation');

const TaskParams = z.strictObject({ dirName: z.string().max(4096) });

/** Opens the request's session and hands its task store to `work`. */
function withStore<T>(context: RouteContext, project: string | null | undefined, work: (store: TaskStore) => T): Promise<T> {
  return context.withSession(project, (session: Session) => work(resolve(session.container, TaskStore)));
}

/** Tasks: list, read, create, update, delete. Reading spans every root; writing touches the owner's only. */
export const taskRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/api/tasks',
    access: 'public',
    handle: (request, context) => withStore(context, parseRequest(ProjectQuery, request.query, 'query').project, (store) => [...store.listTasks()]),
  }),

  defineRoute({
    method: 'POST',
    path: '/api/tasks',
    access: 'token',
    handle: async (request, context) => {
      const body = parseRequest(NewTaskBody, request.body, 'body');
      const project = oneProject(parseRequest(ProjectQuery, request.query, 'query').project, body.project);
      const record = await withStore(context, project, (store) =>
        store.createTask(
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
      return reply(201, record);
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/tasks/:dirName',
    access: 'public',
    handle: (request, context) => {
      const { dirName } = parseRequest(TaskParams, request.params, 'path');
      return withStore(context, parseRequest(ProjectQuery, request.query, 'query').project, (store) => store.getTaskByDirName(dirName));
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/tasks/:dirName',
    access: 'token',
    handle: (request, context) => {
      const { dirName } = parseRequest(TaskParams, request.params, 'path');
      const { project } = parseRequest(ProjectQuery, request.query, 'query');
      const patch = parseRequest(TaskPatchBody, request.body, 'body');
      return withStore(context, project, (store) => store.updateTask(dirName, patch));
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/api/tasks/:dirName',
    access: 'token',
    handle: (request, context) => {
      const { dirName } = parseRequest(TaskParams, request.params, 'path');
      const { project } = parseRequest(ProjectQuery, request.query, 'query');
      return withStore(context, project, (store) => ({ deleted: store.deleteTask(dirName) }));
    },
  }),
];
