import { resolveAll, type Session, SessionLoader } from '@loadout/kernel';
import type { FastifyInstance } from 'fastify';
import { handleJsonRpc } from '../JsonRpc.js';
import { type RpcMethod, RpcMethods } from '../RpcMethod.js';
import type { ApiContext } from './ApiContext.js';

/**
 * `POST /rpc`: JSON-RPC 2.0 over every contributed {@link RpcMethod}. The body is parsed here, not
 * by the framework, so malformed JSON answers with a JSON-RPC parse error (-32700).
 */
export async function registerRpcRoutes(app: FastifyInstance, api: ApiContext): Promise<void> {
  const methods = new Map<string, RpcMethod>();
  for (const method of resolveAll(api.container, RpcMethods)) {
    if (methods.has(method.name)) throw new Error(`two JSON-RPC methods are named ${method.name}`);
    methods.set(method.name, method);
  }
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post('/rpc', async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : '';
      const answer = await handleJsonRpc(
        body,
        methods,
        () => {
          const opened: Session[] = [];
          return {
            context: {
              container: api.container,
              openSession: async (project) => {
                const session = await api.container.resolve(SessionLoader).open({ project: project ?? null });
                opened.push(session);
                return session;
              },
            },
            close: () => {
              for (const session of opened.splice(0)) session.dispose();
            },
          };
        },
        (error) => api.log(`rpc: ${(error as Error).stack ?? String(error)}`),
      );
      if (answer === null) return reply.code(204).send();
      return answer;
    });
  });
}
