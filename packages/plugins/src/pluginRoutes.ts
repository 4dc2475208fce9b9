import { type ApiRoute, defineRoute, reply } from '@loadout/api';
import { z } from 'zod';
import { isMarketplaceEntryId, MarketplaceManager } from './MarketplaceManager.js';
import { parsePluginName } from './parsePluginName.js';
import { PluginManager } from './PluginManager.js';

/** `POST /api/plugins` */
const InstallPluginBody = z.strictObject({
  url: z.string().min(1).max(4096),
  name: z.string().min(1).max(200).optional(),
  ref: z.string().min(1).max(1024).optional(),
  /** Install even when the plugin loads nothing; otherwise that is refused (400) with what to install instead. */
  allowEmpty: z.boolean().optional(),
});
/** What `POST /api/plugins` takes, as a client writes it. */
export type InstallPluginBody = z.input<typeof InstallPluginBody>;
const PluginParams = z.strictObject({ name: z.string().max(1024) });
/** `POST /api/marketplaces`: a marketplace's repository, as `loadout marketplace add` takes it. */
const AddMarketplaceBody = z.strictObject({
  url: z.string().min(1).max(4096),
  name: z.string().min(1).max(64).optional(),
  ref: z.string().min(1).max(1024).optional(),
});
/** What `POST /api/marketplaces` takes, as a client writes it. */
export type AddMarketplaceBody = z.input<typeof AddMarketplaceBody>;
/** `GET /api/marketplaces/search?q=`: every word must appear; no words lists every entry (browsing). */
const MarketplaceSearchQuery = z.strictObject({ q: z.string().max(500).optional() });
/** What `GET /api/marketplaces/search` takes. */
export type MarketplaceSearchQuery = z.input<typeof MarketplaceSearchQuery>;

const pluginName = (params: { name: string }): string => parsePluginName(params.name, 'the URL');
const deps = { plugins: PluginManager, marketplaces: MarketplaceManager };

/**
 * Plugins: list, install, update, enable, disable, uninstall — the same operations as `loadout plugins`;
 * marketplaces: list, add, and search (browse with no words), as `loadout marketplace` and `plugins search`.
 */
export const pluginRoutes: readonly ApiRoute[] = [
  defineRoute({ method: 'GET', path: '/api/plugins', access: 'public', deps, handle: (_input, { plugins }) => plugins.list() }),
  defineRoute({
    method: 'GET',
    path: '/api/marketplaces',
    access: 'public',
    deps,
    handle: (_input, { marketplaces }) => marketplaces.list(),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/marketplaces/search',
    // Reads every marketplace's index on each request: work on demand, so the token (server.md, issue 37).
    access: 'token',
    deps,
    query: MarketplaceSearchQuery,
    handle: ({ query }, { marketplaces }) => marketplaces.search(query.q ?? ''),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/marketplaces',
    access: 'token',
    deps,
    body: AddMarketplaceBody,
    handle: async ({ body }, { marketplaces }) =>
      reply(
        201,
        await marketplaces.add(body.url, {
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.ref === undefined ? {} : { ref: body.ref }),
        }),
      ),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins',
    access: 'token',
    deps,
    body: InstallPluginBody,
    handle: async ({ body }, { plugins, marketplaces }) => {
      const name = {
        ...(body.name === undefined ? {} : { name: body.name }),
        ...(body.allowEmpty === true ? { allowEmpty: true } : {}),
      };
      // `url` may name a marketplace entry, `name@marketplace`, as `loadout plugins install` takes it.
      const entry = isMarketplaceEntryId(body.url)
        ? await marketplaces.install(body.url, name)
        : await plugins.install(body.url, { ...name, ...(body.ref === undefined ? {} : { ref: body.ref }) });
      return reply(201, entry);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins/:name/update',
    access: 'token',
    deps,
    params: PluginParams,
    handle: async ({ params }, { plugins }) => {
      const [update] = await plugins.update([pluginName(params)]);
      return update;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins/:name/enable',
    access: 'token',
    deps,
    params: PluginParams,
    handle: ({ params }, { plugins }) => plugins.enable(pluginName(params)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/plugins/:name/disable',
    access: 'token',
    deps,
    params: PluginParams,
    handle: ({ params }, { plugins }) => plugins.disable(pluginName(params)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/plugins/:name',
    access: 'token',
    deps,
    params: PluginParams,
    handle: ({ params }, { plugins }) => plugins.uninstall(pluginName(params)),
  }),
];
