import { type ApiRoute, defineRoute, parseRequest, reply, type RouteRequest } from '@loadout/api';
import { resolve } from '@loadout/kernel';
import { z } from 'zod';
import { isMarketplaceEntryId, MarketplaceManager } from './MarketplaceManager.js';
import { parsePluginName } from './parsePluginName.js';
import { PluginManager } from './PluginManager.js';

/** `POST /api/plugins` */
const InstallPluginBody = z.strictObject({
  url: z.string().min(1).max(4096),
  name: z.string().min(1).max(200).optional(),
  ref: z.string().min(1).max(1024).optional(),
});
const PluginParams = z.strictObject({ name: z.string().max(1024) });

const pluginName = (request: RouteRequest): string => parsePluginName(parseRequest(PluginParams, request.params, 'path').name, 'the URL');

/** Plugins: list, install, update, enable, disable, uninstall — the same operations as `loadout plugins`. */
export const pluginRoutes: readonly ApiRoute[] = [
  defineRoute({ method: 'GET', path: '/api/plugins', access: 'public', handle: (_request, { container }) => resolve(container, PluginManager).list() }),
  defineRoute({ method: 'GET', path: '/api/marketplaces', access: 'public', handle: (_request, { container }) => resolve(container, MarketplaceManager).list() }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins',
    access: 'token',
    handle: async (request, { container }) => {
      const body = parseRequest(InstallPluginBody, request.body, 'body');
      const name = body.name === undefined ? {} : { name: body.name };
      // `url` may name a marketplace entry, `name@marketplace`, as `loadout plugins install` takes it.
      const entry = isMarketplaceEntryId(body.url)
        ? await resolve(container, MarketplaceManager).install(body.url, name)
        : await resolve(container, PluginManager).install(body.url, { ...name, ...(body.ref === undefined ? {} : { ref: body.ref }) });
      return reply(201, entry);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins/:name/update',
    access: 'token',
    handle: async (request, { container }) => {
      const [update] = await resolve(container, PluginManager).update([pluginName(request)]);
      return update;
    },
  }),
  defineRoute({ method: 'POST', path: '/api/plugins/:name/enable', access: 'token', handle: (request, { container }) => resolve(container, PluginManager).enable(pluginName(request)) }),
  defineRoute({ method: 'POST', path: '/api/plugins/:name/disable', access: 'token', handle: (request, { container }) => resolve(container, PluginManager).disable(pluginName(request)) }),
  defineRoute({ method: 'DELETE', path: '/api/plugins/:name', access: 'token', handle: (request, { container }) => resolve(container, PluginManager).uninstall(pluginName(request)) }),
];
