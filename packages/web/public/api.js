// The one way the screen talks to the server: REST under /api, JSON-RPC at /rpc, event streams.
// Every failure becomes an ApiError whose message is fit to show to the owner as is. Routes,
// methods and streams are named as in types/wire.ts, which takes their JSON from the packages
// that produce it, so `pnpm typecheck` holds the screen to what the server sends.

/** @import { RouteKey, Routes, RpcMethods, Streams } from '../types/wire.js' */

const TOKEN_KEY = 'loadout.token';

/** A refused or failed request, in words. `code` is the server's stable code when it gave one. */
export class ApiError extends Error {
  constructor(message, { status = 0, code = 'REQUEST_FAILED' } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/**
 * Takes the token out of the address (`#token=...`, as `loadout serve` prints it), keeps it for
 * this tab only, and removes it from the address bar and the history so it is not bookmarked,
 * shared in a screenshot of the address bar, or sent anywhere.
 */
export function adoptTokenFromAddress() {
  const fragment = location.hash.startsWith('#') ? location.hash.slice(1) : '';
  if (!/(^|&)token=/.test(fragment)) return;
  const token = new window.URLSearchParams(fragment).get('token') ?? '';
  if (token.trim() !== '') setToken(token.trim());
  history.replaceState(null, '', `${location.pathname}${location.search}`);
}

export function getToken() {
  return window.sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token) {
  window.sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  window.sessionStorage.removeItem(TOKEN_KEY);
}

/** Tells the page that the server refused the token, so it can ask for another. */
function unauthorized(error) {
  window.dispatchEvent(new window.CustomEvent('loadout:unauthorized', { detail: error }));
}

/**
 * A JSON request to a route named `METHOD /path/:param` (e.g. `GET /api/tasks/:dirName`):
 * `params` fill the path, encoded; `query` values that are null/undefined/empty are left out.
 * Answers the parsed body; throws ApiError with the server's code and message for any refusal.
 *
 * @template {RouteKey} R
 * @param {R} route
 * @param {Routes[R]['options']} [options]
 * @returns {Promise<Routes[R]['answer']>}
 */
export async function request(route, options) {
  const { params, query, body } = /** @type {import('../types/wire.js').RouteOptions} */ (options ?? {});
  const [method, template] = route.split(' ');
  const url = new URL(fillPath(template ?? '', params), location.origin);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
  }
  const answer = await rawRequest(method ?? 'GET', url, body);
  if (method !== 'GET') announceChange(route);
  return answer;
}

/** Tells the page that the server accepted a change (`route` names it), e.g. to check the runtimes again. */
function announceChange(route) {
  window.dispatchEvent(new window.CustomEvent('loadout:changed', { detail: { route } }));
}

/** The JSON-RPC methods that only read. */
const RPC_READS = new Set(['capability.state', 'skills.list', 'mcp.list']);

/** `/api/tasks/:dirName` with `{ dirName: 'a b' }` → `/api/tasks/a%20b`. */
function fillPath(template, params = {}) {
  return template.replace(/:([A-Za-z]+)/g, (_, name) => {
    if (!(name in params)) throw new ApiError(`${template}: no value for :${name}`, { code: 'REQUEST_INVALID' });
    return encodeURIComponent(String(params[name]));
  });
}

/**
 * Sends one request and answers the parsed JSON body (null when there is none).
 *
 * @param {string} method
 * @param {URL} url
 * @param {unknown} body
 * @returns {Promise<any>}
 */
async function rawRequest(method, url, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  const token = getToken();
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch {
    throw new ApiError('The Loadout server did not answer. Is `loadout serve` still running?', { code: 'SERVER_UNREACHABLE' });
  }
  const text = await response.text();
  let parsed = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (!response.ok) {
    const error = parsed?.error;
    const failure = new ApiError(
      typeof error?.message === 'string' ? error.message : `The server answered ${response.status} ${response.statusText}`.trim(),
      { status: response.status, code: typeof error?.code === 'string' ? error.code : `HTTP_${response.status}` },
    );
    if (response.status === 401) unauthorized(failure);
    throw failure;
  }
  return parsed;
}

let rpcId = 0;

/**
 * One JSON-RPC 2.0 call at POST /rpc. A JSON-RPC error becomes an ApiError with its stable code.
 *
 * @template {keyof RpcMethods} M
 * @param {M} method
 * @param {RpcMethods[M]['params']} params
 * @returns {Promise<RpcMethods[M]['result']>}
 */
export async function rpc(method, params) {
  rpcId += 1;
  /** @type {{ result?: RpcMethods[M]['result'], error?: { code: number, message?: string, data?: { code?: unknown } } } | null} */
  const answer = await rawRequest('POST', new URL('/rpc', location.origin), { jsonrpc: '2.0', id: rpcId, method, params });
  if (answer === null || typeof answer !== 'object') throw new ApiError(`${method}: the server sent no answer`);
  if (answer.error !== undefined) {
    const data = answer.error.data ?? {};
    const code = typeof data.code === 'string' ? data.code : answer.error.code === -32601 ? 'METHOD_NOT_FOUND' : `RPC_${answer.error.code}`;
    const message =
      answer.error.code === -32601
        ? `This server does not offer ${method} yet (${answer.error.message}).`
        : String(answer.error.message ?? `${method} failed`);
    throw new ApiError(message, { code, status: 200 });
  }
  if (!RPC_READS.has(method)) announceChange(`RPC ${method}`);
  return /** @type {RpcMethods[M]['result']} */ (answer.result);
}

/**
 * Follows a Server-Sent Events stream named as in types/wire.ts (`/api/jobs/:id/stream`, its
 * `params` filled as for {@link request}). Browsers cannot put headers on an EventSource, so the
 * token travels as `?token=` (the server accepts that on GET only). `handlers` maps event names to
 * functions of the parsed data; `onError` is told when the stream breaks before `end`.
 *
 * @template {keyof Streams} S
 * @param {S} stream
 * @param {Readonly<Record<string, string | number>>} params
 * @param {{ [E in keyof Streams[S]]?: (data: Streams[S][E]) => void }} handlers
 * @param {(error: ApiError) => void} [onError]
 */
export function follow(stream, params, handlers, onError) {
  const url = new URL(fillPath(stream, params), location.origin);
  const token = getToken();
  if (token !== null) url.searchParams.set('token', token);
  const source = new EventSource(url);
  let ended = false;
  for (const [event, handler] of Object.entries(handlers)) {
    source.addEventListener(event, (message) => {
      let data = null;
      try {
        data = JSON.parse(message.data);
      } catch {
        data = message.data;
      }
      if (event === 'end') {
        ended = true;
        source.close();
      }
      handler(data);
    });
  }
  source.addEventListener('error', () => {
    if (ended) return;
    // A stream the server refused (bad token, unknown job) never opens; one that opened and broke
    // reconnects by itself, which is right for the inbox and harmless for a job (it replays).
    if (source.readyState === EventSource.CLOSED)
      onError?.(new ApiError('The live stream was refused or closed by the server.', { code: 'STREAM_CLOSED' }));
  });
  return { close: () => source.close() };
}
