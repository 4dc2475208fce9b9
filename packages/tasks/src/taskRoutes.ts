import { isDeepStrictEqual } from 'node:util';
import { type ApiRoute, defineRoute, oneProject, ProjectQuery, projectPath, reply, type RouteContext } from '@loadout/api';
import { resolve, type Session } from '@loadout/kernel';
import { z } from 'zod';
import { TASK_KIND } from './taskKind.js';
import { TaskFieldReadOnlyError, TaskInputInvalidError } from './TaskErrors.js';
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
  body: z
    .string()
    .max(1024 * 1024)
    .optional(),
  level: z.enum(['global', 'project']).optional(),
  timeoutSeconds: z.number().positive().max(MAX_TASK_TIMEOUT_SECONDS).optional(),
  retries: z.number().int().min(0).max(MAX_TASK_RETRIES).optional(),
  project: projectPath.nullable().optional(),
});

/**
 * `PUT /api/tasks/:dirName`: the shape `GET` answers, every field optional, at least one given.
 * The fields listed here can change; every other field `GET` answers (`dirName`, `level`, `path`,
 * `inputSchema` …) is decided by the task's place or its document and is taken back only as it
 * was read. Fields sent with the value they have change nothing; a body that changes nothing
 * writes nothing.
 */
const TaskPatchBody = z
  .object({
    name: z.string().max(1024).optional(),
    description: z.string().max(1024).optional(),
    body: z
      .string()
      .max(1024 * 1024)
      .optional(),
    implementation: implementation.optional(),
    timeoutSeconds: z.number().positive().max(MAX_TASK_TIMEOUT_SECONDS).nullable().optional(),
    retries: z.number().int().min(0).max(MAX_TASK_RETRIES).optional(),
  })
  .catchall(z.unknown())
  .refine(
    (patch) => Object.keys(patch).length > 0,
    'nothing to change: give name, description, body, implementation, timeoutSeconds or retries',
  );

/** What `POST /api/tasks` and `PUT /api/tasks/:dirName` take, as a client writes it (the screen's wire types). */
export type NewTaskBody = z.input<typeof NewTaskBody>;
export type TaskPatchBody = z.input<typeof TaskPatchBody>;

const EDITABLE_FIELDS: ReadonlySet<string> = new Set(['name', 'description', 'body', 'implementation', 'timeoutSeconds', 'retries']);

/**
 * Refuses what a `PUT` body holds beyond the editable fields unless `GET` answered it with that
 * very value: a field `GET` does not answer is unknown, one with another value is read-only.
 */
function checkReadOnlyFields(body: Readonly<Record<string, unknown>>, current: TaskDocument): void {
  const answered = current as unknown as Readonly<Record<string, unknown>>;
  for (const [field, value] of Object.entries(body)) {
    if (EDITABLE_FIELDS.has(field)) continue;
    if (!Object.hasOwn(answered, field)) throw new TaskInputInvalidError(`body: unknown field "${field.slice(0, 64)}"`);
    if (!isDeepStrictEqual(value, answered[field])) throw new TaskFieldReadOnlyError(field);
  }
}

const TaskParams = z.strictObject({ dirName: z.string().max(4096) });

/** Opens the request's session and hands its task store to `work`. */
function withStore<T>(context: RouteContext, project: string | null | undefined, work: (store: TaskStore) => T): Promise<T> {
  return context.withSession(project, (session: Session) => work(resolve(session.container, TaskStore)), { kinds: [TASK_KIND] });
}

/** Tasks: list, read, create, update, delete. Reading spans every root; writing touches the owner's only. */
export const taskRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/api/tasks',
    access: 'public',
    query: ProjectQuery,
    handle: ({ query }, _deps, context) => withStore(context, query.project, (store) => [...store.listTasks()]),
  }),

  defineRoute({
    method: 'POST',
    path: '/api/tasks',
    access: 'token',
    query: ProjectQuery,
    body: NewTaskBody,
    handle: async ({ query, body }, _deps, context) => {
      const project = oneProject(query.project, body.project);
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
    params: TaskParams,
    query: ProjectQuery,
    handle: ({ params, query }, _deps, context) => withStore(context, query.project, (store) => store.getTaskDocument(params.dirName)),
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/tasks/:dirName',
    access: 'token',
    params: TaskParams,
    query: ProjectQuery,
    body: TaskPatchBody,
    handle: ({ params: { dirName }, query: { project }, body }, _deps, context) => {
      return withStore(context, project, (store) => {
        if (Object.keys(body).some((field) => !EDITABLE_FIELDS.has(field))) checkReadOnlyFields(body, store.getTaskDocument(dirName));
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
    params: TaskParams,
    query: ProjectQuery,
    handle: ({ params, query }, _deps, context) =>
      withStore(context, query.project, (store) => ({ deleted: store.deleteTask(params.dirName) })),
  }),
];
