import { type CacheHint, type RequestMethod, Server, type ServerCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import { DEFAULT_WATCH_INTERVAL_MS } from './LiveExposures.js';
import { MCP_INSTRUCTIONS, type McpCall } from './mcpCall.js';
import type { ListKind, McpConnection } from './McpConnection.js';
import { JsonRpcError } from './McpErrors.js';

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

/** JSON-RPC's "method not found". */
const METHOD_NOT_FOUND = -32601;

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
    clientCapabilities: server.getClientCapabilities(),
    notify: (method, params) => ctx.mcpReq.notify({ method, params }),
    listRoots: era === 'legacy' ? async () => (await ctx.mcpReq.send({ method: 'roots/list' }, { timeout: ROOTS_TIMEOUT_MS })).roots : null,
  });
  // The SDK types each method's result; Loadout's handlers build those shapes.
  const on = server.setRequestHandler.bind(server) as (
    method: RequestMethod,
    handler: (request: { method: string; params?: unknown }, ctx: ServerContext) => Promise<never>,
  ) => void;
  for (const [method, handler] of connection.handlers)
    if (SDK_METHODS.has(method)) on(method as RequestMethod, async (request, ctx) => (await handler(request, callOf(ctx))) as never);
  server.fallbackRequestHandler = async (request, ctx) => {
    const handler = connection.handlers.get(request.method);
    if (handler === undefined || SDK_METHODS.has(request.method))
      throw new JsonRpcError(METHOD_NOT_FOUND, `Method not found: ${request.method.slice(0, 100)}`);
    return (await handler(request, callOf(ctx))) as Awaited<ReturnType<NonNullable<Server['fallbackRequestHandler']>>>;
  };
  server.setNotificationHandler('notifications/roots/list_changed', () => connection.rootsChanged());
  return server;
}

/** The notification that tells a client `list` changed. */
export function listChangedNotification(list: ListKind): { method: `notifications/${ListKind}/list_changed` } {
  return { method: `notifications/${list}/list_changed` };
}
