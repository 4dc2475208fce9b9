import { type ApiRoute, defineRoute, type HttpMethod, ProjectQuery, rawResponse } from '@loadout/api';
import type { McpHttpEndpoint } from './McpHttpEndpoint.js';
import { MCP_SERVICES, type McpServices } from './mcpServices.js';

/** The path MCP clients connect to on `loadout serve`. */
export const MCP_HTTP_PATH = '/mcp';

/**
 * The MCP sessions of one server, registered per container by the module's later part: opened on
 * the first request (the MCP stack loads then, so a server nobody connects to over MCP never loads
 * it) and closed when the server stops.
 */
export class McpHttpSessions {
  private endpoint: Promise<McpHttpEndpoint> | null = null;

  /** The endpoint, made on the first call with the services the routes were built with. */
  endpointFor(services: McpServices, log: (line: string) => void): Promise<McpHttpEndpoint> {
    this.endpoint ??= import('./McpHttpEndpoint.js').then(({ McpHttpEndpoint }) => new McpHttpEndpoint(services, log));
    return this.endpoint;
  }

  async close(): Promise<void> {
    const open = this.endpoint;
    this.endpoint = null;
    if (open !== null) await (await open).close();
  }
}

/**
 * `POST|GET|DELETE /mcp` for the server. Every method needs the token (the guard checks it, with
 * Host and Origin, before the body is read). The services MCP needs and the server's sessions are
 * declared on the routes, so the server is built with them or fails to start naming `/mcp`.
 */
export const mcpHttpRoutes: readonly ApiRoute[] = (['POST', 'GET', 'DELETE'] as const satisfies readonly HttpMethod[]).map((method) =>
  defineRoute({
    method,
    path: MCP_HTTP_PATH,
    access: 'token',
    bodyAs: 'text',
    query: ProjectQuery,
    deps: { ...MCP_SERVICES, mcpSessions: McpHttpSessions },
    handle: ({ query: { project } }, { mcpSessions, ...services }, context) => {
      const ready = mcpSessions.endpointFor(services, context.log);
      return rawResponse(async (raw, response, body) => (await ready).handle(raw, response, body, project ?? null));
    },
  }),
);
