import { z } from 'zod';
import { RequestInvalidError } from '../ServerErrors.js';

/** A project folder as a request names it; the session loader checks that it exists. */
export const projectPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((value) => !value.includes('\0'), 'must not hold NUL');

/** `?project=DIR` */
export const ProjectQuery = z.object({ project: projectPath.optional() });

/** A positive integer id in a path, e.g. `/api/jobs/:id`. */
export const IdParams = z.strictObject({ id: z.string().regex(/^[1-9][0-9]{0,14}$/, 'must be a positive whole number').transform(Number) });

const implementation = z.strictObject({
  filename: z.string().min(1).max(255),
  content: z.string().max(1024 * 1024),
});

/** `POST /api/tasks` */
export const NewTaskBody = z.strictObject({
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
export const TaskPatchBody = z
  .strictObject({
    name: z.string().min(1).max(1024).optional(),
    description: z.string().min(1).max(1024).optional(),
    body: z.string().max(1024 * 1024).optional(),
    implementation: implementation.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'nothing to change: give name, description, body or implementation');

/** `POST /api/tasks/:dirName/runs`: `input` is any JSON; left out, the task gets `{}`. */
export const RunBody = z.strictObject({
  input: z.unknown().optional(),
  project: projectPath.nullable().optional(),
});

/** `POST /api/pipelines` */
export const PipelineBody = z.strictObject({
  steps: z
    .array(z.strictObject({ task: z.string().min(1).max(1024), input: z.unknown().optional() }))
    .min(1)
    .max(50),
  project: projectPath.nullable().optional(),
});

/** `POST /api/plugins` */
export const InstallPluginBody = z.strictObject({
  url: z.string().min(1).max(4096),
  name: z.string().min(1).max(200).optional(),
  ref: z.string().min(1).max(1024).optional(),
});

export const PluginParams = z.strictObject({ name: z.string().max(1024) });
export const TaskParams = z.strictObject({ dirName: z.string().max(4096) });

export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/**
 * Parses request data at the boundary into a typed value; a mismatch is a 400 naming the first
 * problem, so nothing past this point re-checks what it was handed.
 */
export function parseRequest<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.map(String).join('.')}: `;
  throw new RequestInvalidError(`${what}: ${where}${issue?.message ?? 'invalid'}`);
}
