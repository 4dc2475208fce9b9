import { type ApiRoute, defineRoute, jsonText, reply, type RpcMethod, RpcMethods, type RouteContext } from '@loadout/api';
import { resolveAll, type Session, SessionLoader } from '@loadout/kernel';
import { handleJsonRpc } from '../JsonRpc.js';

/**
 * `POST /rpc`: JSON-RPC 2.0 over every contributed {@link RpcMethod}. The body arrives as text, so
 * malformed JSON answers with a JSON-RPC parse error (-32700) rather than an HTTP 400.
 */
export function rpcRoute(context: RouteContext): ApiRoute {
  const methods = new Map<string, RpcMethod>();
  for (const method of resolveAll(context.container, RpcMethods)) {
    if (methods.has(method.name)) throw new Error(`two JSON-RPC methods are named ${method.name}`);
    methods.set(method.name, method);
  }
  return defineRoute({
    method: 'POST',
    path: '/rpc',
    access: 'token',
    bodyAs: 'text',
    handle: async (request) => {
      const answer = await handleJsonRpc(
        typeof request.body === 'string' ? request.body : '',
        methods,
        () => {
          const opened: Session[] = [];
          return {
            context: {
              container: context.container,
              openSession: async (project) => {
                const session = await context.container.resolve(SessionLoader).open({ project: project ?? null });
                opened.push(session);
                return session;
              },
            },
            close: () => {
              for (const session of opened.splice(0)) session.dispose();
            },
          };
        },
        (error) => context.log(`rpc: ${(error as Error).stack ?? String(error)}`),
      );
      return answer === null ? reply(204) : jsonText(answer);
    },
  });
}
