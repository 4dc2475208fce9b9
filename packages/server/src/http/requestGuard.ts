import { createHash, timingSafeEqual } from 'node:crypto';
import type { RouteAccess } from '@loadout/api';
import type { FastifyRequest } from 'fastify';
import { ForeignOriginError, TokenRequiredError } from '../ServerErrors.js';

/** What the guard checks a request against. */
export interface GuardSettings {
  readonly token: string;
  /** `host:port` values that name this server, e.g. `127.0.0.1:4477` and `localhost:4477`. */
  readonly ownHosts: () => ReadonlySet<string>;
}

/**
 * Refuses, before anything is parsed or changed: a request whose `Host` is not this server (DNS
 * rebinding) or whose `Origin`, when sent, is not this server (a cross-site request), then a
 * request that needs the token without carrying it. Browsers cannot set headers on an
 * `EventSource`, so a GET may carry the token as `?token=` instead.
 */
export function guardRequest(request: FastifyRequest, settings: GuardSettings): void {
  const own = settings.ownHosts();
  const host = (request.headers.host ?? '').toLowerCase();
  if (!own.has(host))
    throw new ForeignOriginError(
      'HOST_REFUSED',
      `requests must be addressed to this server (${[...own][0] ?? ''}), not "${host.slice(0, 100)}"`,
    );
  const origin = request.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, own)) {
    throw new ForeignOriginError(
      'ORIGIN_REFUSED',
      `requests from ${origin.slice(0, 100)} are refused; only this server's own pages may call it`,
    );
  }
  // Decide on the route the router matched (after it decoded the path), never on the raw URL:
  // `/api/%6Aobs` or an absolute-form target must not slip past a prefix check.
  const access = (request.routeOptions.config as { access?: RouteAccess } | undefined)?.access ?? null;
  if (!needsToken(request.method, access, namesProject(request))) return;
  const presented = presentedToken(request);
  if (presented === null || !sameToken(presented, settings.token)) {
    throw new TokenRequiredError(
      presented === null ? 'this request needs the server token: send "Authorization: Bearer <token>"' : 'the server token does not match',
    );
  }
}

/**
 * Whether a request needs the token: every method but GET/HEAD, reads of routes that declare
 * `access: 'token'`, and any read that names a project (`?project=`). A project is a folder the
 * owner works in: another process on this machine must not learn what it holds (or whether it
 * exists) by asking the owner's server, nor make the server scan and watch folders at will. A GET
 * that matched no route serves nothing and gets its 404.
 *
 * @param access what the matched route declares; null when nothing matched
 * @param project whether the request names a project
 */
export function needsToken(method: string, access: RouteAccess | null, project = false): boolean {
  if (method !== 'GET' && method !== 'HEAD') return true;
  if (access === null) return false;
  return access === 'token' || project;
}

/** Whether the query names a project, even an empty or repeated one. */
function namesProject(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  return query !== undefined && query !== null && Object.hasOwn(query, 'project');
}

function isOwnOrigin(origin: string, own: ReadonlySet<string>): boolean {
  const match = /^http:\/\/([^/]+)$/i.exec(origin);
  return match !== null && own.has((match[1] ?? '').toLowerCase());
}

function presentedToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match === null ? '' : (match[1] ?? '');
  }
  if (request.method === 'GET') {
    const query = request.query as Record<string, unknown> | undefined;
    if (typeof query?.token === 'string') return query.token;
  }
  return null;
}

/** Compares in constant time; hashing first makes the lengths equal. */
function sameToken(presented: string, expected: string): boolean {
  const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The `host:port` names of a server listening on `host` and `port`. */
export function ownHostsFor(host: string, port: number): Set<string> {
  const names = new Set<string>();
  const add = (name: string): void => {
    names.add(`${name}:${port}`);
    if (port === 80) names.add(name);
  };
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1') {
    add('127.0.0.1');
    add('localhost');
    add('[::1]');
  } else {
    add(host.includes(':') ? `[${host}]` : host.toLowerCase());
  }
  return names;
}
