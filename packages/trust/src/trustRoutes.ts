import { type ApiRoute, defineRoute, parseRequest, ProjectQuery, projectPath, reply, type RouteRequest } from '@loadout/api';
import { resolve } from '@loadout/kernel';
import { parsePluginName } from '@loadout/plugins';
import { z } from 'zod';
import { TrustService } from './TrustService.js';

const ProjectBody = z.strictObject({ project: projectPath });
const RequiredProjectQuery = z.object({ project: projectPath });
const ApproveBody = z.strictObject({ commit: z.string().regex(/^[0-9a-f]{40,64}$/, 'a full commit id, as `plugins diff` shows it').optional() });
const PluginParams = z.strictObject({ name: z.string().max(1024) });

const pluginName = (request: RouteRequest): string => parsePluginName(parseRequest(PluginParams, request.params, 'path').name, 'the URL');

/** Trust: the same operations as `loadout trust | untrust | audit | plugins approve | plugins diff`. */
export const trustRoutes: readonly ApiRoute[] = [
  defineRoute({ method: 'GET', path: '/api/trust', access: 'public', handle: (_request, { container }) => resolve(container, TrustService).listTrustedProjects() }),
  defineRoute({
    method: 'POST',
    path: '/api/trust',
    access: 'token',
    handle: async (request, { container }) => reply(201, await resolve(container, TrustService).trustProject(parseRequest(ProjectBody, request.body, 'body').project)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/trust',
    access: 'token',
    handle: (request, { container }) => resolve(container, TrustService).untrustProject(parseRequest(RequiredProjectQuery, request.query, 'query').project),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/audit',
    access: 'public',
    handle: (request, { container }) => resolve(container, TrustService).audit(parseRequest(ProjectQuery, request.query, 'query').project ?? null),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins/:name/approve',
    access: 'token',
    // `commit`: what `GET …/diff` showed as `to`; the approval is refused if the plugin is no longer that.
    handle: (request, { container }) => resolve(container, TrustService).approvePlugin(pluginName(request), parseRequest(ApproveBody, request.body ?? {}, 'body')),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/plugins/:name/diff',
    access: 'public',
    handle: (request, { container }) => resolve(container, TrustService).diffPlugin(pluginName(request)),
  }),
];
