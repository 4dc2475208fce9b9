import {
  CLIENT_INFO_META_KEY,
  type CacheHint,
  type RequestMethod,
  Server,
  type ServerCapabilities,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server';
import { DEFAULT_WATCH_INTERVAL_MS } from './LiveExposures.js';
import { MCP_INSTRUCTIONS, type McpCall } from './mcpCall.js';
import type { ListKind, McpConnection } from './McpConnection.js';

/** How long a client gets to answer `roots/list` (2025 revisions only). */
const ROOTS_TIMEOUT_MS = 5000;

/** The methods the v2 SDK knows by name; Loadout's others (the extensions') reach its fallback handler. */
const SDK_METHODS = new Set([
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
]);

/**
 * The extensions' results that 2026-07-28 wants cache fields on (the SDK adds them to its own
 * methods' results only): the Skills extension's directory and entries.
 */
const CACHEABLE_EXTENSION_METHODS = new Set(['skills/list', 'skills/get']);

/** Params passed on as they came: Loadout's extension handlers refuse bad params with coded errors. */
const UNCHECKED: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'loadout', validate: (value) => ({ value }) },
};

/**
 * How long a 2026-07-28 client may keep a list or a read: a list is what the session is until
 * the workspace changes, and Loadout sees a change within one watch interval, never in advance;
 * private, because what is listed depends on the client's project.
 */
const UNTIL_THE_NEXT_LOOK: CacheHint = { ttlMs: DEFAULT_WATCH_INTERVAL_MS, cacheScope: 'private' };

/**
 * A v2 SDK `Server` answering with `connection`'s handlers. The v2 entries make one per serving
 * unit (`serveStdio`: one per connection, of the era its opening chose; `createMcpHandler`: one
 * per 2026-07-28 HTTP request); what lives longer than a unit stays in `connection`. On the 2025
 * era it asks the client's roots as SDK 1.x's server did; 2026-07-28 has no server-to-client
 * requests, so there the project is the connection's own.
 */
export function buildModernServer(connection: McpConnection, era: 'legacy' | 'modern'): Server {
  const server = new Server(
    { name: 'loadout', title: 'Loadout', version: connection.version },
    {
      capabilities: connection.capabilities as ServerCapabilities,
      instructions: MCP_INSTRUCTIONS,
      cacheHints: {
        'tools/list': UNTIL_THE_NEXT_LOOK,
        'resources/list': UNTIL_THE_NEXT_LOOK,
        'resources/templates/list': UNTIL_THE_NEXT_LOOK,
        'resources/read': UNTIL_THE_NEXT_LOOK,
        'prompts/list': UNTIL_THE_NEXT_LOOK,
      },
    },
  );
  const callOf = (ctx: ServerContext): McpCall => ({
    requestId: ctx.mcpReq.id,
    signal: ctx.mcpReq.signal,
    // The SDK lifts the per-request envelope (protocol version, client capabilities) out of `_meta`.
    requestMeta: { ...ctx.mcpReq._meta, ...ctx.mcpReq.envelope },
    progressToken: ctx.mcpReq._meta?.progressToken,
    clientName: clientNameIn(ctx.mcpReq.envelope) ?? server.getClientVersion()?.name,
    clientCapabilities: server.getClientCapabilities(),
    notify: (method, params) => ctx.mcpReq.notify({ method, params }),
    listRoots: era === 'legacy' ? async () => (await ctx.mcpReq.send({ method: 'roots/list' }, { timeout: ROOTS_TIMEOUT_MS })).roots : null,
  });
  // The SDK types each method's result; Loadout's handlers build those shapes.
  const on = server.setRequestHandler.bind(server) as (
    method: RequestMethod,
    handler: (request: { method: string; params?: unknown }, ctx: ServerContext) => Promise<never>,
  ) => void;
  for (const [method, handler] of connection.handlers) {
    if (SDK_METHODS.has(method)) {
      on(method as RequestMethod, async (request, ctx) => (await handler(request, callOf(ctx))) as never);
      continue;
    }
    // An extension's method, registered by name so that a method nobody answers stays the SDK's
    // own "method not found" (HTTP 404 on 2026-07-28); its handler checks its params itself.
    const cacheable = era === 'modern' && CACHEABLE_EXTENSION_METHODS.has(method);
    server.setRequestHandler(method, { params: UNCHECKED }, async (params, ctx) => {
      const result = (await handler({ method, params }, callOf(ctx))) as Record<string, unknown>;
      return (cacheable ? { ...UNTIL_THE_NEXT_LOOK, ...result } : result) as never;
    });
  }
  server.setNotificationHandler('notifications/roots/list_changed', () => connection.rootsChanged());
  return server;
}

/** The notification that tells a client `list` changed. */
export function listChangedNotification(list: ListKind): { method: `notifications/${ListKind}/list_changed` } {
  return { method: `notifications/${list}/list_changed` };
}

/** The client's name a 2026-07-28 request's envelope carries (its `clientInfo`). */
function clientNameIn(envelope: unknown): string | undefined {
  if (envelope === null || typeof envelope !== 'object') return undefined;
  const info = (envelope as Record<string, unknown>)[CLIENT_INFO_META_KEY];
  if (info === null || typeof info !== 'object') return undefined;
  const name = (info as Record<string, unknown>).name;
  return typeof name === 'string' ? name : undefined;
}
