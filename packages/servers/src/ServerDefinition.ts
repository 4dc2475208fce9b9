import { type CapabilityRecord, isJsonObject, isTextWithin, plainFirstShape } from '@loadout/kernel';
import { z } from 'zod';
import { SECRET_NAME } from './secretFile.js';

const MAX_ARGS = 256;
/** A variable name a server's `secrets` may set. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** A tool's name in a server's allow or deny list: an MCP tool name, or `*` glob patterns of one. */
const TOOL_NAME = /^[A-Za-z0-9_.*/-]{1,128}$/;
const MAX_TOOLS = 256;

/** The file format of `servers/<id>.json`: a command MCP server or a remote one. Built on first use (see {@link serverDefinitionShape}). */
export function serverDefinitionSchema() {
  const common = {
    name: z.string().min(1).max(200),
    description: z.string().max(1024).optional(),
    // Checked by the kernel's declaredGates, the one reader of gate declarations.
    gates: z.unknown().optional(),
    /**
     * Which of the server's tools a runtime offers: only those in `allow` (when given), never those
     * in `deny`. Written into each runtime that has such a setting; reported where it has none.
     */
    tools: z
      .object({
        allow: z.array(z.string().regex(TOOL_NAME)).max(MAX_TOOLS).optional(),
        deny: z.array(z.string().regex(TOOL_NAME)).max(MAX_TOOLS).optional(),
      })
      .strict()
      .optional(),
  };
  return z.union([
    z.object({
      ...common,
      command: z.string().min(1).max(4096),
      args: z.array(z.string().max(4096)).max(MAX_ARGS).default([]),
      env: z.record(z.string(), z.string().max(8192)).default({}),
      /**
       * Variables whose values come from Loadout's secret store (`loadout secrets set NAME`), never
       * from this document: variable name → secret name. A runtime then starts the server through
       * `loadout mcp run ID`, which puts the values into that process alone.
       */
      secrets: z.record(z.string().regex(ENV_NAME), z.string().regex(SECRET_NAME)).optional(),
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
}
export type ServerDefinitionFile = z.infer<ReturnType<typeof serverDefinitionSchema>>;
type CommandServerDefinition = Extract<ServerDefinitionFile, { command: string }>;

/**
 * A command server's definition as {@link serverDefinitionSchema} builds it (the schema's field
 * order, unknown fields dropped, `args` and `env` filled in) when it is plainly valid; null for
 * anything else — a remote server among them, whose URL only the schema checks.
 */
export function plainServerDefinition(raw: unknown): CommandServerDefinition | null {
  if (!isJsonObject(raw)) return null;
  const { name, description, gates, command, args, env, cwd } = raw;
  // Named secrets and tool lists are rare enough to leave to the schema, which checks their names.
  if (raw.secrets !== undefined || raw.tools !== undefined) return null;
  if (!isTextWithin(name, 1, 200) || (description !== undefined && !isTextWithin(description, 0, 1024))) return null;
  if (!isTextWithin(command, 1, 4096) || (cwd !== undefined && !isTextWithin(cwd, 1, 4096))) return null;
  if (args !== undefined && !(Array.isArray(args) && args.length <= MAX_ARGS && args.every((arg) => isTextWithin(arg, 0, 4096))))
    return null;
  if (env !== undefined && !isPlainEnvironment(env)) return null;
  return {
    name,
    ...(description === undefined ? {} : { description }),
    ...(gates === undefined ? {} : { gates }),
    command,
    args: args === undefined ? [] : [...(args as string[])],
    env: env === undefined ? {} : { ...env },
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** Variables whose values are plainly short enough; a `__proto__` name is left to the schema, which drops it (value unchecked) where a copy keeps it. */
function isPlainEnvironment(env: unknown): env is Record<string, string> {
  if (!isJsonObject(env)) return false;
  for (const key of Object.keys(env)) if (key === '__proto__' || !isTextWithin(env[key], 0, 8192)) return false;
  return true;
}

/** How a server definition is checked: by hand, and by the schema when the hand check cannot tell. */
export const serverDefinitionShape = plainFirstShape<ServerDefinitionFile>(plainServerDefinition, serverDefinitionSchema);

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
