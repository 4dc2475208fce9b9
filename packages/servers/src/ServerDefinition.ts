import { type CapabilityRecord, zodShape } from '@loadout/kernel';
import { z } from 'zod';

const common = {
  name: z.string().min(1).max(200),
  description: z.string().max(1024).optional(),
  // Checked by the kernel's declaredGates, the one reader of gate declarations.
  gates: z.unknown().optional(),
};

/** The file format of `servers/<id>.json`: a command MCP server or a remote one. */
export const ServerDefinitionFile = z.union([
  z.object({
    ...common,
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(256).default([]),
    env: z.record(z.string(), z.string().max(8192)).default({}),
    /** The working directory the server starts in. */
    cwd: z.string().min(1).max(4096).optional(),
  }),
  z.object({
    ...common,
    url: z.url({ protocol: /^(https?|wss?)$/ }),
    headers: z.record(z.string(), z.string().max(8192)).optional(),
    /**
     * How an `http(s)` server is reached: `http` (Streamable HTTP, the default) or `sse` (the older
     * HTTP+SSE transport). A `ws(s)` URL is a WebSocket server whatever this says.
     */
    type: z.enum(['http', 'sse']).optional(),
  }),
]);
export type ServerDefinitionFile = z.infer<typeof ServerDefinitionFile>;
export const serverDefinitionShape = zodShape(ServerDefinitionFile);

/**
 * Where a server record keeps the definition it was read from. A symbol key is skipped by
 * `JSON.stringify`, so sessions, listings and HTTP answers never show environment values or
 * headers, while the runtimes that write MCP configuration get the whole definition.
 */
export const SERVER_DEFINITION: unique symbol = Symbol.for('loadout.servers.definition');

/** An MCP server definition in a session. */
export interface ServerRecord extends CapabilityRecord {
  readonly kind: 'server';
  readonly transport: 'stdio' | 'http';
  readonly command?: string;
  readonly args?: readonly string[];
  /** Names of the environment variables the definition sets; their values are never listed. */
  readonly envKeys?: readonly string[];
  readonly cwd?: string;
  readonly url?: string;
  /** The whole definition as read, secrets included: never listed (a symbol key is not serialized). */
  readonly [SERVER_DEFINITION]?: ServerDefinitionFile;
}

/** A server's id is its file stem; it must be usable as a file name everywhere. */
export const SERVER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The full definition behind a session's server record (environment values and headers included). */
export function serverDefinitionOf(record: ServerRecord): ServerDefinitionFile | null {
  return record[SERVER_DEFINITION] ?? null;
}
