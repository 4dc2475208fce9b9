import { type ApiRoute, defineRoute, ProjectQuery, projectPath, reply } from '@loadout/api';
import { parsePluginName } from '@loadout/plugins';
import { z } from 'zod';
import { TrustService } from './TrustService.js';

const ProjectBody = z.strictObject({ project: projectPath });
/** What `POST /api/trust` takes, as a client writes it. */
export type TrustProjectBody = z.input<typeof ProjectBody>;
const RequiredProjectQuery = z.object({ project: projectPath });
const ApproveBody = z.strictObject({
  commit: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/, 'a full commit id, as `plugins diff` shows it')
    .optional(),
});
/** What `POST /api/plugins/:name/approve` takes: the commit `plugins diff` showed, to approve only that. */
export type PluginApproveBody = z.input<typeof ApproveBody>;
const PluginParams = z.strictObject({ name: z.string().max(1024) });

const pluginName = (params: { name: string }): string => parsePluginName(params.name, 'the URL');
const deps = { trust: TrustService };

/**
 * Trust: the same operations as `loadout trust | untrust | audit | plugins approve | plugins diff`.
 * Every one needs the token, reads too: which projects are trusted, what the audit finds and what a
 * diff computes are the owner's decisions and costly work, not what a session lists.
 */
export const trustRoutes: readonly ApiRoute[] = [
  defineRoute({ method: 'GET', path: '/api/trust', access: 'token', deps, handle: (_input, { trust }) => trust.listTrustedProjects() }),
  defineRoute({
    method: 'POST',
    path: '/api/trust',
    access: 'token',
    deps,
    body: ProjectBody,
    handle: async ({ body }, { trust }) => reply(201, await trust.trustProject(body.project)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/trust',
    access: 'token',
    deps,
    query: RequiredProjectQuery,
    handle: ({ query }, { trust }) => trust.untrustProject(query.project),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/audit',
    access: 'token',
    deps,
    query: ProjectQuery,
    handle: ({ query }, { trust }) => trust.audit(query.project ?? null),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins/:name/approve',
    access: 'token',
    deps,
    params: PluginParams,
    // `commit`: what `GET …/diff` showed as `to`; the approval is refused if the plugin is no longer that.
    body: ApproveBody.optional(),
    handle: ({ params, body }, { trust }) => trust.approvePlugin(pluginName(params), body ?? {}),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/plugins/:name/review',
    access: 'token',
    deps,
    params: PluginParams,
    // What the Approve… dialog shows; its `commit` goes back in the approve body.
    handle: ({ params }, { trust }) => trust.reviewPlugin(pluginName(params)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/trust/review',
    access: 'token',
    deps,
    query: RequiredProjectQuery,
    handle: ({ query }, { trust }) => trust.reviewProject(query.project),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/plugins/:name/diff',
    access: 'token',
    deps,
    params: PluginParams,
    handle: ({ params }, { trust }) => trust.diffPlugin(pluginName(params)),
  }),
];
