import { resolve } from '@loadout/kernel';
import { parsePluginName, PluginManager } from '@loadout/plugins';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from './ApiContext.js';
import { InstallPluginBody, parseRequest, PluginParams } from './requestSchemas.js';

/** Plugins: list, install, update, enable, disable, uninstall — the same operations as `loadout plugins`. */
export function registerPluginRoutes(app: FastifyInstance, api: ApiContext): void {
  const manager = (): PluginManager => resolve(api.container, PluginManager);
  const pluginName = (params: unknown): string => parsePluginName(parseRequest(PluginParams, params, 'path').name, 'the URL');

  app.get('/api/plugins', async () => manager().list());

  app.post('/api/plugins', async (request, reply) => {
    const body = parseRequest(InstallPluginBody, request.body, 'body');
    const entry = await manager().install(body.url, {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.ref === undefined ? {} : { ref: body.ref }),
    });
    return reply.code(201).send(entry);
  });

  app.post('/api/plugins/:name/update', async (request) => {
    const [update] = await manager().update([pluginName(request.params)]);
    return update;
  });
  app.post('/api/plugins/:name/enable', async (request) => manager().enable(pluginName(request.params)));
  app.post('/api/plugins/:name/disable', async (request) => manager().disable(pluginName(request.params)));
  app.delete('/api/plugins/:name', async (request) => manager().uninstall(pluginName(request.params)));
}
