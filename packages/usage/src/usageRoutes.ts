import { type ApiRoute, defineRoute, projectPath } from '@loadout/api';
import { z } from 'zod';
import { parseUsageRuntime, parseUsageWindow, UsageLedger } from './UsageLedger.js';

const UsageQuerySchema = z.strictObject({
  since: z.string().max(40).optional(),
  runtime: z.string().max(100).optional(),
  project: projectPath.optional(),
});
/** What `GET /api/usage` takes: `?since=30d&runtime=R&project=DIR`. */
export type UsageRouteQuery = z.input<typeof UsageQuerySchema>;

/**
 * `GET /api/usage`: the report `loadout usage --json` prints. Behind the token: which capabilities
 * the owner's agents used, and when, is the owner's own record.
 */
export const usageRoutes: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/api/usage',
    access: 'token',
    deps: { ledger: UsageLedger },
    query: UsageQuerySchema,
    handle: ({ query }, { ledger }) =>
      ledger.report({
        sinceDays: parseUsageWindow(query.since ?? '30d'),
        runtime: query.runtime === undefined ? null : parseUsageRuntime(query.runtime),
        project: query.project ?? null,
      }),
  }),
];
