import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError } from './McpErrors.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One method an extension adds: the request's params (unchecked) in, its result out. */
export type ExtensionMethod = (request: { readonly method: string; readonly params?: unknown }, extra: Extra) => Promise<unknown>;

/** JSON-RPC's "method not found". */
const METHOD_NOT_FOUND = -32601;

/**
 * The thin adapter between the SDK-free extension modules (`skillsExtension.ts`,
 * `tasksExtension.ts`) and SDK 1.x's `Server`: declares the extensions under
 * `capabilities.extensions` and answers their methods. SDK 1.x knows neither the methods nor
 * their capability (its `tasks/*` handlers want the older `capabilities.tasks`, which the
 * extension forbids), so they are answered by the server's fallback handler: every method the
 * SDK has no handler for comes here, and one no extension defines (`tasks/result`, `tasks/list`
 * of the older task API among them) is "method not found". Re-registering on another server
 * means calling the same extension functions from its own handlers.
 */
export function serveExtensionMethods(
  server: Server,
  extensions: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
  methods: Readonly<Record<string, ExtensionMethod>>,
): void {
  server.registerCapabilities({ extensions });
  server.fallbackRequestHandler = async (request, extra) => {
    const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    if (method === undefined) throw new JsonRpcError(METHOD_NOT_FOUND, `Method not found: ${request.method.slice(0, 100)}`);
    return (await method(request, extra)) as Awaited<ReturnType<NonNullable<Server['fallbackRequestHandler']>>>;
  };
}
