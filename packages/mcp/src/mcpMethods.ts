import type { SessionExposure } from './SessionExposure.js';

/** What a method handler gets besides its params: the session as it is now, and the request's abort signal. */
export interface McpMethodCall {
  /** The exposure of this request's project, as it is at this moment. */
  exposure(): Promise<SessionExposure>;
  /** Fires when the client cancelled the request or went away. */
  readonly signal: AbortSignal;
}

/**
 * A JSON-RPC method Loadout's MCP server answers beyond the SDK's own (an extension's
 * `skills/list`, say), written without the SDK: `handle` gets the request's params and answers its
 * result, or throws a Loadout error, which becomes a coded JSON-RPC error like every other
 * refusal. `capabilities` is merged into what the server declares at `initialize` (an extension
 * declares itself under `extensions`).
 */
export interface McpMethod {
  readonly method: string;
  readonly capabilities?: Readonly<Record<string, unknown>>;
  handle(params: Readonly<Record<string, unknown>>, call: McpMethodCall): Promise<Readonly<Record<string, unknown>>>;
}

/**
 * Every method of {@link McpMethod} the server answers, over stdio and HTTP alike: the one list
 * an extension's handlers are added to.
 */
export const MCP_METHODS: readonly McpMethod[] = [];
