import { contributeRoutes, ServerServices } from '@loadout/api';
import { contribute, type Registration } from '@loadout/kernel';
import { mcpHttpFace } from './mcpHttpFace.js';

/**
 * Registers MCP over Streamable HTTP on the server (`/mcp`) and the service that closes its
 * sessions when the server stops. `loadout mcp` (stdio) needs no registration: it calls
 * `serveMcpOverStdio` with the app's container, which takes what it needs from it at once.
 */
export const mcpModule: Registration = (container) => {
  const face = mcpHttpFace();
  contributeRoutes(container, 'mcp', face.routes);
  contribute(container, ServerServices, face.service);
};
