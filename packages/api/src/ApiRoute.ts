import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { contribute, type Session, token } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';
import type { z } from 'zod';
import type { Dependencies, Resolved } from './dependencies.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Who may call a route once the Host and Origin checks passed. The one rule: a read is `public`
 * only when it shows what the owner's global session lists (the session, its tasks, the installed
 * plugins and marketplaces; credentials redacted) at a cost the server bounds; everything else is
 * `token`: every write and run, and reads of the owner's decisions (trusted projects, audit),
 * of work computed on demand (a plugin's diff) and of what tasks printed. A route that changes
 * something is always `token`; the server refuses to register it otherwise. A `public` read that
 * names a project (`?project=`) needs the token too: the server decides that for every route.
 */
export type RouteAccess = 'public' | 'token';

/** A request as the server received it: path parameters, query and body, not yet validated. */
export interface RouteRequest {
  readonly method: HttpMethod;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  /** Parsed JSON (undefined for an empty body), or the text itself for a `bodyAs: 'text'` route. */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

/** What a handler is handed: its path parameters, query and body as its schemas made them, and the request itself. */
export interface RouteInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly request: RouteRequest;
}

/** What every route handler gets besides its input and its dependencies. Built once per server. */
export interface RouteContext {
  /**
   * Opens a session (for `project` when given), hands it to `work` and disposes it after. With
   * `kinds`, only those kinds are read (a task lookup needs tasks alone).
   */
  withSession<T>(
    project: string | null | undefined,
    work: (session: Session) => T | Promise<T>,
    options?: { readonly kinds?: readonly string[] },
  ): Promise<T>;
  /** Reports a problem in the server's log. */
  log(line: string): void;
}

/**
 * One HTTP route, contributed by the package that owns what it does. It declares what it needs:
 * `deps`, typed tokens resolved once when the server is built (a token nothing registers fails
 * the start with a `WiringError` naming the route and the token), and zod schemas for `params`,
 * `query` and `body`, checked before `handle` runs (a mismatch answers 400) and typed into it. The
 * server matches the route, runs its Host, Origin and token checks first, parses the body, and
 * sends what `handle` returns: a plain value as `200` JSON, or one of {@link reply},
 * {@link eventStream}, {@link rawResponse}. A `LoadoutError` thrown by `handle` answers with its
 * category's status.
 *
 * @example
 * defineRoute({
 *   method: 'GET', path: '/api/plugins/:name', access: 'public',
 *   deps: { plugins: PluginManager },
 *   params: z.strictObject({ name: z.string().max(1024) }),
 *   handle: ({ params }, { plugins }) => plugins.get(params.name),
 * });
 */
export interface RouteDefinition<D extends Dependencies, P, Q, B> {
  readonly method: HttpMethod;
  /** A path with `:name` parameters, e.g. `/api/tasks/:dirName`. */
  readonly path: string;
  readonly access: RouteAccess;
  /** How the body reaches `handle`: parsed JSON (a malformed body answers 400) or the raw text. */
  readonly bodyAs?: 'json' | 'text';
  readonly deps?: D;
  readonly params?: z.ZodType<P>;
  readonly query?: z.ZodType<Q>;
  readonly body?: z.ZodType<B>;
  handle(input: RouteInput<P, Q, B>, deps: Resolved<D>, context: RouteContext): unknown;
}

/** A route as it is registered: its types erased, its contributor named by {@link contributeRoutes}. */
export interface ApiRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly access: RouteAccess;
  readonly bodyAs?: 'json' | 'text';
  /** The package that contributed it, named in wiring errors. */
  readonly contributor?: string;
  readonly deps: Dependencies;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  handle(input: RouteInput<unknown, unknown, unknown>, deps: Readonly<Record<string, unknown>>, context: RouteContext): unknown;
}
export const HttpRoutes = token<ApiRoute>('api.httpRoutes');

/** Types a route's handler from its dependencies and schemas where it is written; registered as is. */
export function defineRoute<
  D extends Dependencies = Record<never, never>,
  P = RouteRequest['params'],
  Q = RouteRequest['query'],
  B = unknown,
>(route: RouteDefinition<D, P, Q, B>): ApiRoute {
  return { ...route, deps: route.deps ?? {} } as unknown as ApiRoute;
}

/** Contributes `routes` under `contributor` (the package's name), which wiring errors name. */
export function contributeRoutes(container: DependencyContainer, contributor: string, routes: readonly ApiRoute[]): void {
  for (const route of routes) contribute(container, HttpRoutes, { ...route, contributor });
}

/** A JSON answer with a status other than 200, or no body at all. */
export class RouteReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** True when `body` is JSON the route serialised itself (text or its UTF-8 bytes), sent as it is. */
    readonly serialized = false,
    /** Response headers besides the content type, e.g. an `ETag`. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** Answers `status` with `body` as JSON (no body when undefined). */
export function reply(status: number, body?: unknown, headers: Readonly<Record<string, string>> = {}): RouteReply {
  return new RouteReply(status, body, false, headers);
}

/**
 * Answers with JSON the route serialised itself, e.g. to bound its size while writing it, or to
 * keep it: as text, or as its UTF-8 bytes (an answer sent many times is kept encoded, so no
 * request pays for turning megabytes of text into bytes again).
 */
export function jsonText(text: string | Uint8Array, status = 200, headers: Readonly<Record<string, string>> = {}): RouteReply {
  return new RouteReply(status, text, true, headers);
}

/** One Server-Sent Events response. */
export interface EventStream {
  send(event: string, data: unknown): void;
  /** Ends the response; safe to call twice. */
  close(): void;
  /** Called once when the response ends, from either side. */
  onClose(listener: () => void): void;
}

/** A Server-Sent Events answer: the server opens the stream and hands it to `open`. */
export class EventStreamReply {
  constructor(readonly open: (stream: EventStream) => void) {}
}

export function eventStream(open: (stream: EventStream) => void): EventStreamReply {
  return new EventStreamReply(open);
}

/**
 * An answer written by the route itself on the raw Node response, for protocols with their own
 * transport (e.g. MCP over Streamable HTTP). The server's checks have run; the body is as the
 * route asked for it.
 */
export class RawReply {
  constructor(readonly write: (request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void>) {}
}

export function rawResponse(write: RawReply['write']): RawReply {
  return new RawReply(write);
}
