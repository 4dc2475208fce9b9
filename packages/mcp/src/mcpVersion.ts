import { createRequire } from 'node:module';

/** The version Loadout's MCP server reports to clients: this package's. */
export const MCP_SERVER_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
