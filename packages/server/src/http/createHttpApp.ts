import type { ServerResponse } from 'node:http';
import {
  type ApiRoute,
  type EventStream,
  EventStreamReply,
  HttpRoutes,
  RawReply,
  parseRequest,
  RequestInvalidError,
  resolveDependencies,
  type RouteContext,
  RouteReply,
  StaticAssetFolders,
} from '@loadout/api';
import {
  answerBytes,
  boundedJson,
  exceedsJsonDepth,
  MAX_ANSWER_BYTES,
  MAX_JSON_DEPTH,
  resolveAll,
  responseTooLarge,
  WiringError,
} from '@loadout/kernel';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { DependencyContainer } from 'tsyringe';
import { httpErrorFor } from './httpErrors.js';
import { openEventStream } from './openEventStream.js';
import { type GuardSettings, guardRequest } from './requestGuard.js';
import { rpcRoute } from './rpcRoute.js';
import { sessionRoutes } from './sessionRoutes.js';
import { registerStaticAssets } from './staticAssetRoutes.js';

/** The largest request body: a task's implementation (1 MiB) with room for JSON escaping. */
export const BODY_LIMIT = 4 * 1024 * 1024;
/**
 * Longer path segments are refused outright (400). Generous, so that an over-long task or plugin
 * name normally reaches its own check, which names the rule.
 */
const MAX_PARAM_LENGTH = 8192;

/** What the HTTP app needs besides the guard: the routes' context and the live event streams. */
export interface HttpAppContext {
  /** The app's root container: every route's and method's dependencies are resolved from it, once, here. */
  readonly container: DependencyContainer;
  readonly route: RouteContext;
  /** Live event streams, ended when the server stops. */
  readonly streams: Set<EventStream>;
}

/**
 * The HTTP API as a Fastify instance, not yet listening: the server's own routes (health, session,
 * JSON-RPC) and every contributed route and static folder. Every request passes the guard (Host,
 * Origin, token) before its body is read; every error leaves through one handler that maps it to
 * a status and `{ error: { code, message } }`.
 */
export async function createHttpApp(context: HttpAppContext, guard: GuardSettings): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: true,
    return503OnClosing: true,
    routerOptions: {
      maxParamLength: MAX_PARAM_LENGTH,
      onBadUrl: (path, _request, response) =>
        rawError(response, 400, 'PATH_INVALID', `the path ${path.slice(0, 100)} is not valid URL encoding`),
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
    else
      json(request, text, (error, value) => {
        // Deeper than anyone means, and deep enough to exhaust the stack of whatever serialises it later.
        if (error === null && exceedsJsonDepth(value))
          done(new RequestInvalidError(`the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, 'BODY_TOO_DEEP'));
        else done(error, value);
      });
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
    for (const stream of [...context.streams]) stream.close();
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = httpErrorFor(error);
    if (answer.internal) context.route.log(`${request.method} ${request.url.split('?')[0]}: ${(error as Error).stack ?? String(error)}`);
    void reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    void reply.code(404).send({ error: { code: 'ROUTE_NOT_FOUND', message: `no route ${request.method} ${pathname.slice(0, 200)}` } });
  });

  const routes = wireRoutes(context.container, [
    ...sessionRoutes(context.container).map((route) => ({ ...route, contributor: 'server' })),
    { ...rpcRoute(context.container), contributor: 'server' },
    ...resolveAll(context.container, HttpRoutes),
  ]);
  registerRoutes(
    app,
    routes.filter(({ route }) => route.bodyAs !== 'text'),
    context,
  );
  // Routes that read their body as text get their own scope, where JSON is not parsed.
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    registerRoutes(
      scope,
      routes.filter(({ route }) => route.bodyAs === 'text'),
      context,
    );
  });
  for (const assets of resolveAll(context.container, StaticAssetFolders)) registerStaticAssets(app, assets);
  return app;
}

/** A route with its dependencies resolved. */
interface WiredRoute {
  readonly route: ApiRoute;
  readonly deps: Readonly<Record<string, unknown>>;
}

/**
 * Checks every route before the server listens and resolves what each declares it needs, once: a
 * mutating route declared `public`, two routes on one method and path, and a dependency nothing
 * registers all fail the start with a `WiringError` naming the route and who contributed it.
 */
function wireRoutes(container: DependencyContainer, routes: readonly ApiRoute[]): WiredRoute[] {
  const seen = new Map<string, ApiRoute>();
  return routes.map((route) => {
    const who = `the route ${route.method} ${route.path} (from ${route.contributor ?? 'an unnamed contributor'})`;
    if (route.method !== 'GET' && route.access !== 'token') {
      throw new WiringError(`${who} changes something and must declare access: 'token'`);
    }
    const key = `${route.method} ${route.path.replace(/:[^/]+/g, ':')}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new WiringError(
        `${who} is contributed twice: ${earlier.contributor ?? 'an unnamed contributor'} contributes ${earlier.method} ${earlier.path} too`,
      );
    }
    seen.set(key, route);
    return { route, deps: resolveDependencies(container, who, route.deps) };
  });
}

function registerRoutes(app: FastifyInstance, routes: readonly WiredRoute[], context: HttpAppContext): void {
  for (const { route, deps } of routes) {
    app.route({
      method: route.method,
      url: route.path,
      config: { access: route.access },
      handler: async (request, reply) => {
        const raw = {
          method: route.method,
          params: request.params as Record<string, string>,
          query: request.query as Record<string, unknown>,
          body: request.body,
          headers: request.headers,
        };
        const input = {
          params: route.params === undefined ? raw.params : parseRequest(route.params, raw.params, 'path'),
          query: route.query === undefined ? raw.query : parseRequest(route.query, raw.query, 'query'),
          body: route.body === undefined ? raw.body : parseRequest(route.body, raw.body, 'body'),
          request: raw,
        };
        return send(await route.handle(input, deps, context.route), request, reply, context);
      },
    });
  }
}

/**
 * Sends what a route returned: a plain value as 200 JSON, or what one of the reply kinds asks for.
 * Every JSON answer is held to the kernel's one answer size ({@link MAX_ANSWER_BYTES}), as a
 * JSON-RPC batch and an MCP POST are: past it the route answers `RESPONSE_TOO_LARGE` instead.
 */
async function send(result: unknown, request: FastifyRequest, reply: FastifyReply, context: HttpAppContext): Promise<FastifyReply> {
  const json = 'application/json; charset=utf-8';
  if (result instanceof RouteReply) {
    for (const [name, value] of Object.entries(result.headers)) void reply.header(name, value);
    if (result.body === undefined) return reply.code(result.status).send();
    const text = result.serialized ? (result.body as string | Uint8Array) : boundedJson(result.body);
    if (answerBytes(text) > MAX_ANSWER_BYTES) throw responseTooLarge('answer');
    return reply.code(result.status).type(json).send(text);
  }
  if (result instanceof EventStreamReply) {
    result.open(openEventStream(request, reply, context.streams));
    return reply;
  }
  if (result instanceof RawReply) {
    reply.hijack();
    await result.write(request.raw, reply.raw, request.body);
    return reply;
  }
  return result === undefined ? reply.code(204).send() : reply.type(json).send(boundedJson(result));
}

function rawError(response: ServerResponse, status: number, code: string, message: string): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify({ error: { code, message } }));
}
