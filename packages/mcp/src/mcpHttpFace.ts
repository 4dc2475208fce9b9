import { type ApiRoute, defineRoute, type HttpMethod, ProjectQuery, rawResponse, type ServerService } from '@loadout/api';
import type { McpHttpEndpoint } from './McpHttpEndpoint.js';
import { MCP_SERVICES } from './mcpServices.js';

/** The path MCP clients connect to on `loadout serve`. */
export const MCP_HTTP_PATH = '/mcp';

/**
 * `POST|GET|DELETE /mcp` for the server, and a service that closes the MCP sessions when it
 * stops. Every method needs the token (the guard checks it, with Host and Origin, before the body
 * is read). The MCP stack is loaded on the first request, so a server nobody connects to over MCP
 * never loads it; the services it needs are declared on the routes, so the server is built with
 * them or fails to start naming `/mcp`.
 */
export function mcpHttpFace(): { routes: ApiRoute[]; service: ServerService } {
  let endpoint: Promise<McpHttpEndpoint> | null = null;
  const route = (method: HttpMethod): ApiRoute =>
    defineRoute({
      method,
      path: MCP_HTTP_PATH,
      access: 'token',
      bodyAs: 'text',
      query: ProjectQuery,
      deps: MCP_SERVICES,
      handle: ({ query: { project } }, services, context) => {
        endpoint ??= import('./McpHttpEndpoint.js').then(({ McpHttpEndpoint }) => new McpHttpEndpoint(services, context.log));
        const ready = endpoint;
        return rawResponse(async (raw, response, body) => (await ready).handle(raw, response, body, project ?? null));
      },
    });
  return {
    routes: [route('POST'), route('GET'), route('DELETE')],
    service: {
      name: 'mcp',
      start: async () => ({ lines: [], json: {} }),
      stop: async () => {
        const open = endpoint;
        endpoint = null;
        if (open !== null) await (await open).close();
      },
    },
  };
}
