import { isDeepStrictEqual } from 'node:util';
import { type ApiRoute, defineRoute, oneProject, parseRequest, ProjectQuery, projectPath, reply, type RouteContext } from '@loadout/api';
import { resolve, type Session } from '@loadout/kernel';
import { z } from 'zod';
import { TaskFieldReadOnlyError } from './TaskErrors.js';
import { MAX_TASK_RETRIES, MAX_TASK_TIMEOUT_SECONDS, type TaskDocument, TaskStore } from './TaskStore.js';

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
  timeoutSeconds: z.number().positive().max(MAX_TASK_TIMEOUT_SECONDS).optional(),
  retries: z.number().int().min(0).max(MAX_TASK_RETRIES).optional(),
  project: projectPath.nullable().optional(),
});

/**
 * The fields of a {@link TaskDocument} that only the task's place decides. `PUT` takes them back
 * as `GET` gave them, so a client can send the document it read; a changed value is refused.
 */
const READ_ONLY_FIELDS = ['kind', 'id', 'dirName', 'level', 'plugin', 'path', 'folder', 'implementationPath', 'gates'] as const satisfies readonly (keyof TaskDocument)[];

/**
 * `PUT /api/tasks/:dirName`: the shape `GET` answers, every field optional, at least one given.
 * Fields sent with the value they have change nothing; a body that changes nothing writes nothing.
 */
const TaskPatchBody = z
  .strictObject({
    name: z.string().max(1024).optional(),
    description: z.string().max(1024).optional(),
    body: z.string().max(1024 * 1024).optional(),
    implementation: implementation.optional(),
    timeoutSeconds: z.number().positive().max(MAX_TASK_TIMEOUT_SECONDS).nullable().optional(),
    retries: z.number().int().min(0).max(MAX_TASK_RETRIES).optional(),
    kind: z.unknown().optional(),
    id: z.unknown().optional(),
    dirName: z.unknown().optional(),
    level: z.unknown().optional(),
    plugin: z.unknown().optional(),
    path: z.unknown().optional(),
    folder: z.unknown().optional(),
    implementationPath: z.unknown().optional(),
    gates: z.unknown().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'nothing to change: give name, description, body, implementation, timeoutSeconds or retries');

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
      return withStore(context, parseRequest(ProjectQuery, request.query, 'query').project, (store) => store.getTaskDocument(dirName));
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/tasks/:dirName',
    access: 'token',
    handle: (request, context) => {
      const { dirName } = parseRequest(TaskParams, request.params, 'path');
      const { project } = parseRequest(ProjectQuery, request.query, 'query');
      const body = parseRequest(TaskPatchBody, request.body, 'body');
      return withStore(context, project, (store) => {
        const sent = READ_ONLY_FIELDS.filter((field) => body[field] !== undefined);
        if (sent.length > 0) {
          const current = store.getTaskDocument(dirName);
          const changed = sent.find((field) => !isDeepStrictEqual(body[field], current[field]));
          if (changed !== undefined) throw new TaskFieldReadOnlyError(changed);
        }
        const { name, description, body: markdown, implementation: file, timeoutSeconds, retries } = body;
        store.updateTask(dirName, { name, description, body: markdown, implementation: file, timeoutSeconds, retries });
        return store.getTaskDocument(dirName);
      });
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
