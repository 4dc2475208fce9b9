import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { serveExtensionMethods } from './extensionMethods.js';
import { MCP_INSTRUCTIONS, type McpCall } from './mcpCall.js';
import type { McpConnection } from './McpConnection.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long a client gets to answer `roots/list`. */
const ROOTS_TIMEOUT_MS = 5000;

/** The methods SDK 1.x has schemas for; every other one of Loadout's goes through its fallback handler. */
const LEGACY_SCHEMAS: Readonly<Record<string, unknown>> = {
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
  'prompts/get': GetPromptRequestSchema,
};

/**
 * SDK 1.x's `Server` answering with `connection`'s handlers: the 2025 sessionful Streamable HTTP
 * serving of `/mcp` (the v2 SDK's own 2025 HTTP serving is stateless, which would end the
 * `list_changed` stream 2025 clients read) and the in-process tests.
 */
export function bindLegacyServer(connection: McpConnection): Server {
  const { extensions, ...capabilities } = connection.capabilities;
  const server = new Server(
    { name: 'loadout', title: 'Loadout', version: connection.version },
    { capabilities, instructions: MCP_INSTRUCTIONS },
  );
  const callOf = (extra: Extra): McpCall => ({
    requestId: extra.requestId,
    signal: extra.signal,
    requestMeta: extra._meta,
    progressToken: extra._meta?.progressToken,
    clientName: server.getClientVersion()?.name,
    clientCapabilities: server.getClientCapabilities(),
    notify: (method, params) => extra.sendNotification({ method, params } as ServerNotification),
    listRoots: async () => (await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema, { timeout: ROOTS_TIMEOUT_MS })).roots,
  });
  // The SDK types each handler's result by its schema; Loadout's are built to those shapes.
  const on = server.setRequestHandler.bind(server) as (
    schema: unknown,
    handler: (request: never, extra: Extra) => Promise<unknown>,
  ) => void;
  const others: Record<string, (request: { method: string; params?: unknown }, extra: Extra) => Promise<unknown>> = {};
  for (const [method, handler] of connection.handlers) {
    const answer = (request: { method: string; params?: unknown }, extra: Extra): Promise<unknown> => handler(request, callOf(extra));
    const schema = LEGACY_SCHEMAS[method];
    if (schema === undefined) others[method] = answer;
    else on(schema, answer as (request: never, extra: Extra) => Promise<unknown>);
  }
  serveExtensionMethods(server, (extensions ?? {}) as Record<string, Record<string, unknown>>, others);
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => connection.rootsChanged());
  return server;
}
