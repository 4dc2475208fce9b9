import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AnswerBudget, exceedsJsonDepth, MAX_BATCH_CALLS, MAX_JSON_DEPTH, SessionLoader } from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { LiveExposures } from './LiveExposures.js';
import type { McpServices } from './mcpServices.js';
import { fixedProject, type ListKind, McpConnection, projectFromRoots } from './McpConnection.js';
import { INVALID_PARAMS } from './McpErrors.js';
import { MCP_SERVER_VERSION } from './mcpVersion.js';
import { buildModernServer } from './modernSdkServer.js';

/** How many MCP sessions the server keeps; past that the least recently used idle one is closed. */
const MAX_SESSIONS = 100;
/** A session with no request and no open stream for this long is closed. */
const IDLE_MS = 30 * 60 * 1000;

interface HttpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly connection: McpConnection;
  lastSeen: number;
  /** Open GET streams (server-to-client messages); a session with one is not idle. */
  streams: number;
}

/**
 * MCP over Streamable HTTP at `/mcp`, behind the server's guard (Host, Origin, token: checked
 * before this sees the request), routed by protocol era with the v2 SDK's own classification
 * (`isLegacyRequest`):
 *
 * - 2026-07-28 requests (they carry the per-request `_meta` envelope) go to the v2 SDK's
 *   `createMcpHandler`: stateless, one server instance per request, `server/discover`,
 *   `subscriptions/listen` streams for list changes, header validation. What outlives a request
 *   (tasks, the lists announced) is one {@link McpConnection} per project.
 * - 2025 requests keep the sessionful serving of SDK 1.x: one transport and one
 *   {@link McpConnection} per MCP session, found by the `Mcp-Session-Id` header; a new session
 *   starts with an `initialize` POST, and its GET stream carries `list_changed`. A client that
 *   drops a POST while a tool call runs on it cancels that call.
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, HttpSession>();
  /** The 2026-07-28 records, by project (the `?project=` of the URL, resolved; '' for none). */
  private readonly modernRecords = new Map<string, McpConnection>();
  /** The project each 2026-07-28 request is served for, given to the factory the SDK calls with it. */
  private readonly projectOfRequest = new WeakMap<Request, string | null>();
  private readonly modern: McpHttpHandler;
  private readonly exposures: LiveExposures;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly services: McpServices,
    private readonly log: (line: string) => void,
  ) {
    this.exposures = new LiveExposures(services.sessions);
    this.modern = createMcpHandler(
      ({ requestInfo }) =>
        buildModernServer(this.modernRecord(requestInfo === undefined ? null : (this.projectOfRequest.get(requestInfo) ?? null)), 'modern'),
      { legacy: 'reject', onerror: (error) => this.log(`mcp: ${error.message}`) },
    );
    this.sweeper = setInterval(() => this.closeIdle(Date.now() - IDLE_MS), 60_000);
    this.sweeper.unref();
  }

  /**
   * Answers one request on `/mcp`.
   *
   * @param text the body as text (POST), undefined otherwise
   * @param project the `?project=` of the URL: the session's project when the client offers no roots
   */
  async handle(request: IncomingMessage, response: ServerResponse, text: unknown, project: string | null): Promise<void> {
    let body: unknown;
    if (request.method === 'POST') {
      try {
        body = JSON.parse(typeof text === 'string' ? text : '') as unknown;
      } catch {
        writeJsonRpcError(response, 400, -32700, 'Parse error: the body is not JSON');
        return;
      }
      // The same bounds as `/rpc`: nothing deeper than anyone means reaches the SDK's schemas (they
      // recurse), and a batch holds no more calls than one answer is meant to carry.
      if (exceedsJsonDepth(body)) {
        writeJsonRpcError(response, 400, -32600, `Invalid Request: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
        return;
      }
      if (Array.isArray(body) && body.length > MAX_BATCH_CALLS) {
        writeJsonRpcError(response, 400, -32600, `Invalid Request: a batch holds at most ${MAX_BATCH_CALLS} calls`);
        return;
      }
    }
    const web = webRequestOf(request, text);
    if (!(await isLegacyRequest(web.request, body))) {
      let modernProject: string | null;
      try {
        modernProject = project === null ? null : SessionLoader.resolveProject(project);
      } catch (error) {
        if (!isLoadoutError(error)) throw error;
        writeJsonRpcError(response, 400, INVALID_PARAMS, error.message);
        return;
      }
      this.projectOfRequest.set(web.request, modernProject);
      response.once('close', () => {
        if (!response.writableFinished) web.abort();
      });
      await writeWebResponse(response, await this.modern.fetch(web.request, { parsedBody: body }));
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = this.sessions.get(sessionId);
      if (session === undefined) {
        writeJsonRpcError(response, 404, -32001, 'Session not found: it ended, or this server restarted; initialize a new one');
        return;
      }
      session.lastSeen = Date.now();
      this.follow(session, request, response, body);
      await session.transport.handleRequest(request, response, body);
      return;
    }
    if (request.method !== 'POST' || !(Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body))) {
      writeJsonRpcError(response, 400, -32000, 'Bad Request: send Mcp-Session-Id, or start a session with an initialize request');
      return;
    }
    let fallback: string | null;
    try {
      fallback = project === null ? null : SessionLoader.resolveProject(project);
    } catch (error) {
      if (!isLoadoutError(error)) throw error;
      writeJsonRpcError(response, 400, INVALID_PARAMS, error.message);
      return;
    }
    await this.start(request, response, body, fallback);
  }

  /** Closes every session (their running calls are cancelled and settled) and stops watching. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.modern.close();
    await Promise.allSettled([
      ...[...this.sessions.values()].map((session) => this.end(session)),
      ...[...this.modernRecords.values()].map((record) => record.close()),
    ]);
    this.sessions.clear();
    this.modernRecords.clear();
    this.exposures.close();
  }

  /**
   * The record 2026-07-28 requests for `project` share: its tasks, and the lists it served, whose
   * changes are published to the open `subscriptions/listen` streams.
   */
  private modernRecord(project: string | null): McpConnection {
    const key = project ?? '';
    let record = this.modernRecords.get(key);
    if (record === undefined) {
      record = new McpConnection(this.services, this.exposures, fixedProject(project), this.log, MCP_SERVER_VERSION);
      const notify = this.modern.notify;
      const announce: Record<ListKind, () => void> = {
        tools: () => notify.toolsChanged(),
        resources: () => notify.resourcesChanged(),
        prompts: () => notify.promptsChanged(),
      };
      record.onListChanged(async (list) => announce[list]());
      this.modernRecords.set(key, record);
    }
    return record;
  }

  private async start(request: IncomingMessage, response: ServerResponse, body: unknown, fallback: string | null): Promise<void> {
    if (this.sessions.size >= MAX_SESSIONS) this.closeLeastRecentlyUsed();
    const connection = new McpConnection(this.services, this.exposures, projectFromRoots(fallback, this.log), this.log, MCP_SERVER_VERSION);
    let session: HttpSession | null = null;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session = { transport, connection, lastSeen: Date.now(), streams: 0 };
        this.sessions.set(id, session);
      },
    });
    // Set before connecting: the SDK chains its own close handling after this one.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
      void connection.close();
    };
    transport.onerror = (error) => this.log(`mcp: ${error.message}`);
    await connection.server.connect(transport);
    await transport.handleRequest(request, response, body);
    if (session === null) await transport.close(); // the initialize was refused: nothing to keep
  }

  /**
   * Counts a GET stream while it is open; for a POST, gives its calls one answer budget (they leave
   * in one HTTP answer) and cancels its tool calls if its client leaves before the answer.
   */
  private follow(session: HttpSession, request: IncomingMessage, response: ServerResponse, body: unknown): void {
    if (request.method === 'GET') {
      session.streams += 1;
      response.once('close', () => (session.streams -= 1));
      return;
    }
    if (request.method !== 'POST') return;
    const ids: RequestId[] = [];
    for (const message of Array.isArray(body) ? body : [body]) {
      const candidate = message as { method?: unknown; id?: unknown } | null;
      if (typeof candidate?.method === 'string' && (typeof candidate.id === 'string' || typeof candidate.id === 'number'))
        ids.push(candidate.id);
    }
    if (ids.length === 0) return;
    const release = session.connection.shareBudget(ids, new AnswerBudget());
    response.once('close', () => {
      if (!response.writableFinished) session.connection.abortRequests(ids);
      release();
    });
  }

  private closeIdle(before: number): void {
    for (const session of [...this.sessions.values()]) {
      if (session.streams === 0 && session.lastSeen < before) void this.end(session);
    }
  }

  private closeLeastRecentlyUsed(): void {
    const idle = [...this.sessions.values()].filter((session) => session.streams === 0);
    const oldest = (idle.length > 0 ? idle : [...this.sessions.values()]).sort((a, b) => a.lastSeen - b.lastSeen)[0];
    if (oldest !== undefined) void this.end(oldest);
  }

  private async end(session: HttpSession): Promise<void> {
    if (session.transport.sessionId !== undefined) this.sessions.delete(session.transport.sessionId);
    await session.transport.close();
    await session.connection.close();
  }
}

function writeJsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** A web `Request` for the v2 SDK's fetch-shaped entries, made from Node's request and its body as read; `abort` cancels it. */
function webRequestOf(request: IncomingMessage, text: unknown): { request: Request; abort: () => void } {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  const controller = new AbortController();
  const method = request.method ?? 'GET';
  const web = new Request(`http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`, {
    method,
    headers,
    body: method === 'POST' || method === 'PUT' ? (typeof text === 'string' ? text : '') : undefined,
    signal: controller.signal,
  });
  return { request: web, abort: () => controller.abort() };
}

/** Writes a web `Response` to Node's response, streaming its body (an SSE stream stays open until it ends). */
async function writeWebResponse(response: ServerResponse, answer: Response): Promise<void> {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  response.writeHead(answer.status, headers);
  if (answer.body === null) {
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  response.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || response.destroyed) break;
      response.write(value);
    }
  } catch {
    // The client went away mid-stream: nothing is left to write to.
  }
  response.end();
}
