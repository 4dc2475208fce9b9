import { formatValidationError } from '@loadout/kernel';
import { z } from 'zod';
import { RequestInvalidError } from './ApiErrors.js';

// The schemas are built on first use (z.lazy): every command loads this package for its
// contribution points, and only the server and the RPC methods parse requests.

/** A project folder as a request names it; the session loader checks that it exists. */
export const projectPath = z.lazy(() =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine((value) => !value.includes('\0'), 'must not hold NUL'),
);

const projectQuery = () => z.object({ project: projectPath.optional() });

/** `?project=DIR` */
export const ProjectQuery = z.lazy(projectQuery);

/** `?project=DIR&kinds=skills,tasks`: a session, of some kinds only when `kinds` is given. */
export const SessionQuery = z.lazy(() =>
  projectQuery().extend({
    kinds: z
      .string()
      .max(1024)
      .transform((value) =>
        value
          .split(',')
          .map((kind) => kind.trim())
          .filter((kind) => kind !== ''),
      )
      .optional(),
  }),
);

/** A positive integer id in a path, e.g. `/api/jobs/:id`. */
export const IdParams = z.lazy(() =>
  z.strictObject({
    id: z
      .string()
      .regex(/^[1-9][0-9]{0,14}$/, 'must be a positive whole number')
      .transform(Number),
  }),
);

/** `?limit=N` on a list; `.unwrap()` is the object, to extend. */
export const ListQuery = z.lazy(() =>
  z.object({
    limit: z.coerce.number().int().min(1).max(1000).optional(),
  }),
);

/**
 * Parses request data at the boundary into a typed value; a mismatch is a 400 naming what is
 * wrong, so nothing past this point re-checks what it was handed.
 *
 * @param what where the value came from, e.g. `body` or `query`, for the message
 */
export function parseRequest<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  throw new RequestInvalidError(`${what}: ${formatValidationError(parsed.error)}`);
}

/** The project a request names in its query or its body; naming two different ones is refused. */
export function oneProject(fromQuery: string | undefined, fromBody: string | null | undefined): string | null {
  if (fromQuery !== undefined && fromBody !== undefined && fromBody !== null && fromQuery !== fromBody) {
    throw new RequestInvalidError('the query and the body name different projects');
  }
  return fromQuery ?? fromBody ?? null;
}
