import type { ServerResponse } from 'node:http';
import { resolveAll } from '@loadout/kernel';
import Fastify, { type FastifyInstance } from 'fastify';
import { type ApiContext, HttpRoutes } from './ApiContext.js';
import { RequestInvalidError } from '../ServerErrors.js';
import { httpErrorFor } from './httpErrors.js';
import { registerJobRoutes } from './jobRoutes.js';
import { registerNotificationRoutes } from './notificationRoutes.js';
import { registerPluginRoutes } from './pluginRoutes.js';
import { type GuardSettings, guardRequest } from './requestGuard.js';
import { registerRpcRoutes } from './rpcRoutes.js';
import { registerSessionRoutes } from './sessionRoutes.js';
import { registerTaskRoutes } from './taskRoutes.js';
import { registerWebRoutes } from './webRoutes.js';

/** The largest request body: a task's implementation (1 MiB) with room for JSON escaping. */
export const BODY_LIMIT = 4 * 1024 * 1024;
/**
 * Longer path segments are refused outright (400). Generous, so that an over-long task or plugin
 * name normally reaches its own check, which names the rule.
 */
const MAX_PARAM_LENGTH = 8192;

/**
 * The HTTP API as a Fastify instance, not yet listening. Every request passes the guard (Host,
 * Origin, token) before its body is read; every error leaves through one handler that maps it to
 * a status and `{ error: { code, message } }`.
 */
export async function createHttpApp(api: ApiContext, guard: GuardSettings): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    return503OnClosing: true,
    routerOptions: {
      maxParamLength: MAX_PARAM_LENGTH,
      onBadUrl: (path, _request, response) => rawError(response, 400, 'PATH_INVALID', `the path ${path.slice(0, 100)} is not valid URL encoding`),
      onMaxParamLength: (_path, _request, response) =>
        rawError(response, 400, 'PATH_INVALID', `a name in the path is longer than ${MAX_PARAM_LENGTH} characters`),
    },
  });
  // An empty JSON body counts as none (a bodiless POST from a client that always sets the type).
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') done(null, undefined);
    else json(request, text, done);
  });

  app.addHook('onRequest', async (request) => {
    guardRequest(request, guard);
    // Refused here so every route answers the same way, whatever the router does with it.
    if ((request.url.split('?')[0] ?? '').split('/').some((segment) => segment.length > MAX_PARAM_LENGTH)) {
      throw new RequestInvalidError(`a name in the path is longer than ${MAX_PARAM_LENGTH} characters`, 'PATH_INVALID');
    }
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
    // No other site may frame anything here (clickjacking), and a `?token=` never leaves in a
    // Referer. The screen's pages set their own, stricter policy.
    reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', "frame-ancestors 'none'");
    reply.header('referrer-policy', 'no-referrer');
  });
  app.addHook('preClose', async () => {
    for (const stream of [...api.streams]) stream.close();
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = httpErrorFor(error);
    if (answer.internal) api.log(`${request.method} ${request.url.split('?')[0]}: ${(error as Error).stack ?? String(error)}`);
    void reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    void reply.code(404).send({ error: { code: 'ROUTE_NOT_FOUND', message: `no route ${request.method} ${pathname.slice(0, 200)}` } });
  });

  registerSessionRoutes(app, api);
  registerTaskRoutes(app, api);
  registerJobRoutes(app, api);
  registerNotificationRoutes(app, api);
  registerPluginRoutes(app, api);
  await registerRpcRoutes(app, api);
  registerWebRoutes(app);
  for (const contribution of resolveAll(api.container, HttpRoutes)) await contribution.register(app, api);
  return app;
}

function rawError(response: ServerResponse, status: number, code: string, message: string): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify({ error: { code, message } }));
}

