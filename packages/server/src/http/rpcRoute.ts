import { type ApiRoute, defineRoute, jsonText, reply, resolveDependencies, RpcMethods } from '@loadout/api';
import { resolveAll, type Session, SessionLoader, WiringError } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import { handleJsonRpc, type WiredRpcMethod } from '../JsonRpc.js';

/**
 * `POST /rpc`: JSON-RPC 2.0 over every contributed `RpcMethod`, each with its dependencies
 * resolved once, here: a method whose dependency nothing registers, or a name two contributors
 * use, fails the start naming them. The body arrives as text, so malformed JSON answers with a
 * JSON-RPC parse error (-32700) rather than an HTTP 400.
 */
export function rpcRoute(container: DependencyContainer): ApiRoute {
  const methods = new Map<string, WiredRpcMethod>();
  for (const method of resolveAll(container, RpcMethods)) {
    const earlier = methods.get(method.name);
    if (earlier !== undefined) {
      throw new WiringError(
        `the JSON-RPC method ${method.name} is contributed twice: by ${earlier.method.contributor ?? 'an unnamed contributor'} and by ${method.contributor ?? 'an unnamed contributor'}`,
      );
    }
    methods.set(method.name, {
      method,
      deps: resolveDependencies(
        container,
        `the JSON-RPC method ${method.name} (from ${method.contributor ?? 'an unnamed contributor'})`,
        method.deps,
      ),
    });
  }
  const loader = container.resolve(SessionLoader);
  return defineRoute({
    method: 'POST',
    path: '/rpc',
    access: 'token',
    bodyAs: 'text',
    handle: async ({ request }, _deps, context) => {
      const answer = await handleJsonRpc(
        typeof request.body === 'string' ? request.body : '',
        methods,
        () => {
          const opened: Session[] = [];
          return {
            context: {
              openSession: async (project) => {
                const session = await loader.open({ project: project ?? null });
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
