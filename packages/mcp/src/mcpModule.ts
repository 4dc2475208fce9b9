import { ServerServices } from '@loadout/api';
import { contribute, type Registration } from '@loadout/kernel';
import { McpHttpSessions } from './mcpHttpFace.js';

/**
 * The later part of the MCP module: the server's MCP sessions and the service that closes them
 * when the server stops. Its routes (`/mcp`) are declared on the module (`mcpHttpRoutes`), not
 * registered here. `loadout mcp` (stdio) needs neither: it calls `serveMcpOverStdio` with the
 * app's container, which takes what it needs from it at once.
 */
export const mcpModule: Registration = (container) => {
  const sessions = new McpHttpSessions();
  container.register(McpHttpSessions, { useValue: sessions });
  contribute(container, ServerServices, {
    name: 'mcp',
    start: async () => ({ lines: [], json: {} }),
    stop: () => sessions.close(),
  });
};
