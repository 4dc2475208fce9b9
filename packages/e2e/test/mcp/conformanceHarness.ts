/**
 * What the conformance test puts between the official MCP conformance suite and Loadout. The suite
 * only speaks HTTP and sends no credentials, so:
 *
 * - {@link startTokenProxy} forwards to `loadout serve`'s `/mcp` adding the bearer token, and names
 *   the server's own address in `Host` and `Origin` where the suite named the proxy's (a foreign
 *   Host or Origin passes unchanged, so the server's own DNS-rebinding refusal is what is tested);
 * - {@link startStdioBridge} answers Streamable HTTP by relaying each message to a `loadout mcp`
 *   process over stdio: one process per MCP session (started by an `initialize`), one shared
 *   process for requests that carry no session (2026-07-28's stateless requests). Request ids are
 *   renumbered on the way in, so clients sharing a process never collide.
 *
 * {@link readScenarioResults} reads the suite's per-scenario `checks.json` files.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** The `_meta` key a 2026-07-28 request names its protocol revision under. */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';

/** A small local HTTP server of the harness, and how to stop it. */
export interface LocalServer {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: http.Server, path_: string, onClose: () => Promise<void> = async () => undefined): Promise<LocalServer> {
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path_}`,
    close: async () => {
      await onClose();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** Forwards every request to `target` (an origin, `http://127.0.0.1:PORT`) with `Authorization: Bearer token`. */
export async function startTokenProxy(target: string, token: string): Promise<LocalServer> {
  const theirs = new URL(target).host;
  let own = '';
  const rename = (value: string | undefined): string | undefined =>
    value === undefined ? undefined : value.replace(`//${own}`, `//${theirs}`).replace(new RegExp(`^${own}$`), theirs);
  const server = http.createServer((request, response) => {
    const headers: http.OutgoingHttpHeaders = { ...request.headers, authorization: `Bearer ${token}` };
    headers.host = rename(request.headers.host);
    if (request.headers.origin !== undefined) headers.origin = rename(request.headers.origin);
    const upstream = http.request(`${target}${request.url ?? '/'}`, { method: request.method, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  const started = await listen(server, '/mcp');
  own = new URL(started.url).host;
  return started;
}

type Message = {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: { _meta?: { progressToken?: unknown } & Record<string, unknown> };
} & Record<string, unknown>;

/** One `loadout mcp` process and the messages waiting for it. */
class StdioPeer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (message: Message) => void>();
  /** Where notifications go: by progress token to the request that asked, else to open GET streams. */
  readonly progressStreams = new Map<unknown, (message: Message) => void>();
  readonly streams = new Set<(message: Message) => void>();
  private nextId = 1;
  stderr = '';

  constructor(command: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
    this.child = spawn(command[0] as string, command.slice(1), { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8').on('data', (text: string) => (this.stderr = (this.stderr + text).slice(-4000)));
    let buffer = '';
    this.child.stdout.setEncoding('utf8').on('data', (text: string) => {
      buffer += text;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line !== '') this.receive(JSON.parse(line) as Message);
      }
    });
    this.child.on('exit', () => {
      for (const [id, answer] of this.waiting)
        answer({ jsonrpc: '2.0', id, error: { code: -32603, message: `loadout mcp exited: ${this.stderr}` } });
      this.waiting.clear();
    });
  }

  /** Sends a request under an id of the bridge's own and resolves with its answer, under the caller's id. */
  request(message: Message): Promise<Message> {
    const id = this.nextId++;
    const theirs = message.id;
    return new Promise((done) => {
      this.waiting.set(id, (answer) => done({ ...answer, id: theirs }));
      this.send({ ...message, id });
    });
  }

  send(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  private receive(message: Message): void {
    if (message.method === undefined && typeof message.id === 'number') {
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
      return;
    }
    if (message.id !== undefined) {
      // A request of the server's own (none is expected over stdio with a fixed project): refused.
      this.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'the bridge answers no server requests' } });
      return;
    }
    const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
    const asked = token === undefined ? undefined : this.progressStreams.get(token);
    if (asked !== undefined) asked(message);
    else for (const stream of this.streams) stream(message);
  }
}

function sse(response: http.ServerResponse, message: Message): void {
  response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

function jsonError(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/**
 * Streamable HTTP in front of `loadout mcp`. `command` starts one (e.g. `[node, cli, 'mcp']`).
 * Every POST holding requests is answered as an event stream: the progress notifications its
 * requests asked for, then their answers.
 */
export async function startStdioBridge(command: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<LocalServer> {
  const sessions = new Map<string, StdioPeer>();
  // Sessionless requests share a process per protocol era: a stdio connection is pinned to the era
  // of its first message, so 2026-07-28's enveloped requests and claim-less ones (which a 2025
  // client would only send after `initialize`) never share one.
  const shared = new Map<'2026-07-28' | 'other', StdioPeer>();
  const server = http.createServer((request, response) => {
    void (async () => {
      const sessionId = request.headers['mcp-session-id'];
      const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (typeof sessionId === 'string' && known === undefined) return jsonError(response, 404, 'Session not found');
      if (request.method === 'DELETE') {
        if (known === undefined) return jsonError(response, 400, 'no session to end');
        sessions.delete(sessionId as string);
        await known.stop();
        response.writeHead(200).end();
        return;
      }
      if (request.method === 'GET') {
        if (known === undefined) return jsonError(response, 405, 'Method not allowed');
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        response.flushHeaders();
        const stream = (message: Message): void => sse(response, message);
        known.streams.add(stream);
        response.once('close', () => known.streams.delete(stream));
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return jsonError(response, 400, 'Parse error');
      }
      const messages = (Array.isArray(body) ? body : [body]) as Message[];
      let peer = known;
      const headers: http.OutgoingHttpHeaders = {};
      if (peer === undefined && messages.some((message) => message.method === 'initialize')) {
        const id = randomUUID();
        peer = new StdioPeer(command, env, cwd);
        sessions.set(id, peer);
        headers['mcp-session-id'] = id;
      }
      if (peer === undefined) {
        const era = messages.some((message) => message.params?._meta?.[PROTOCOL_VERSION_META] === '2026-07-28') ? '2026-07-28' : 'other';
        peer = shared.get(era) ?? new StdioPeer(command, env, cwd);
        shared.set(era, peer);
      }
      const requests = messages.filter((message) => message.method !== undefined && message.id !== undefined);
      for (const message of messages) if (!requests.includes(message)) peer.send(message);
      if (requests.length === 0) {
        response.writeHead(202, headers).end();
        return;
      }
      response.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const tokens = requests.map((message) => message.params?._meta?.progressToken).filter((token) => token !== undefined);
      const target = peer;
      for (const token of tokens) target.progressStreams.set(token, (message) => sse(response, message));
      try {
        for (const answer of await Promise.all(requests.map((message) => target.request(message)))) sse(response, answer);
      } finally {
        for (const token of tokens) target.progressStreams.delete(token);
      }
      response.end();
    })().catch((error: Error) => {
      if (!response.headersSent) jsonError(response, 500, error.message);
      else response.destroy();
    });
  });
  return listen(server, '/mcp', async () => {
    await Promise.all([...sessions.values(), ...shared.values()].map((peer) => peer.stop()));
  });
}

/** One scenario's outcome as the suite wrote it: how many checks of each status. */
export interface ScenarioResult {
  readonly scenario: string;
  readonly passed: number;
  readonly failed: number;
  /** The first failing checks' messages, for the test's failure output. */
  readonly failures: readonly string[];
}

/**
 * Reads every `server-<scenario>-<timestamp>/checks.json` the suite wrote into `dir`. A scenario
 * that ended with an error writes its folder but no checks: it counts as failed, with `crash` (what
 * the suite printed) as why.
 */
export function readScenarioResults(dir: string, crash = ''): ScenarioResult[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('server-'))
    .map((name) => {
      const scenario = name.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
      const file = path.join(dir, name, 'checks.json');
      if (!fs.existsSync(file))
        return { scenario, passed: 0, failed: 1, failures: [`the scenario ended with an error: ${crash.slice(0, 300)}`] };
      const checks = JSON.parse(fs.readFileSync(file, 'utf8')) as { id: string; status: string; errorMessage?: string }[];
      const failing = checks.filter((check) => check.status === 'FAILURE');
      return {
        scenario,
        passed: checks.filter((check) => check.status === 'SUCCESS').length,
        failed: failing.length,
        failures: failing.slice(0, 3).map((check) => `${check.id}: ${check.errorMessage ?? ''}`.slice(0, 300)),
      };
    })
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}
