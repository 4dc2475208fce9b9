/** What the server tells every client at the start. */
export const MCP_INSTRUCTIONS =
  'Loadout serves this session as it is now: its tasks are tools, its skills are resources (skill://<id>) and prompts (skill:<id>), its commands are prompts (command:<id>), its subagents are resources (loadout://agents/<id>), and the skills and affordance blocks are resources under loadout://session/.';

/** A JSON-RPC request id, as either SDK carries it. */
export type McpRequestId = string | number;

/**
 * What one of Loadout's MCP handlers needs of the request it answers, whichever SDK server and
 * protocol revision carried it: the handlers are written once against this, and each SDK's
 * binding (`legacySdkServer.ts`, `modernSdkServer.ts`) fills it from its own request context.
 */
export interface McpCall {
  readonly requestId: McpRequestId;
  /** Fires when the client cancelled the request or went away. */
  readonly signal: AbortSignal;
  /** The request's `_meta` (the v2 SDK lifts it out of the params its handlers see). */
  readonly requestMeta: unknown;
  /** The `_meta.progressToken` the client asked progress under, if any. */
  readonly progressToken: string | number | undefined;
  /** The client's own name: from `initialize` (2025) or this request's envelope (2026-07-28); undefined when it gave none. */
  readonly clientName: string | undefined;
  /** The client's capabilities: declared at `initialize` (2025) or on this request (2026-07-28). */
  readonly clientCapabilities: unknown;
  /** Sends a notification tied to this request (progress). */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /**
   * Asks the client for its roots; null where the server cannot ask the client anything
   * (protocol 2026-07-28 has no server-to-client requests).
   */
  readonly listRoots: (() => Promise<readonly { readonly uri: string }[]>) | null;
}

/** One of Loadout's handlers: the request (its params unchecked) in, its result out. */
export type McpHandler = (request: { readonly method: string; readonly params?: unknown }, call: McpCall) => Promise<unknown>;
