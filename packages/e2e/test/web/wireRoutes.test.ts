import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, TOKEN } from '../server/support.js';

// The screen is type-checked against packages/web/types/wire.ts; this holds that file to the
// server: every route, stream and method it names is one the app's server answers.

const WIRE = fs.readFileSync(path.resolve(import.meta.dirname, '../../../web/types/wire.ts'), 'utf8');

/** The quoted keys of one interface of wire.ts. */
function keysOf(interfaceName: string): string[] {
  const start = WIRE.indexOf(`export interface ${interfaceName} {`);
  expect(start, interfaceName).toBeGreaterThan(-1);
  const body = WIRE.slice(start, WIRE.indexOf('\n}\n', start));
  return [...body.matchAll(/^ {2}'([^']+)':/gm)].map((match) => match[1] as string);
}

/** A path with every `:param` filled by a value no record has. */
const filled = (template: string): string => template.replace(/:[A-Za-z]+/g, '999999');

/** The status and error code of the answer's head; a stream is closed as soon as it opens. */
function head(port: number, method: string, url: string): Promise<{ status: number; code: string | null }> {
  return new Promise((done, fail) => {
    const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (response) => {
        if (response.headers['content-type']?.startsWith('text/event-stream')) {
          request.destroy();
          done({ status: response.statusCode ?? 0, code: null });
          return;
        }
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          done({ status: response.statusCode ?? 0, code: (JSON.parse(text || '{}') as { error?: { code?: string } }).error?.code ?? null }),
        );
      },
    );
    request.on('error', fail);
    request.end(body);
  });
}

let server: TestServer | null = null;
/** The runtimes' folders follow these; `POST /api/runtimes/apply` below must write into a scratch home. */
const RUNTIME_VARIABLES = ['HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'XDG_CONFIG_HOME'] as const;
const savedVariables = Object.fromEntries(RUNTIME_VARIABLES.map((name) => [name, process.env[name]]));
afterEach(async () => {
  await server?.close();
  server = null;
  for (const name of RUNTIME_VARIABLES) {
    if (savedVariables[name] === undefined) delete process.env[name];
    else process.env[name] = savedVariables[name];
  }
  removeTestdirs();
});

describe("the screen's wire types", () => {
  it('name only routes, streams and methods the server answers', async () => {
    for (const name of RUNTIME_VARIABLES) delete process.env[name];
    process.env.HOME = testdir();
    server = await TestServer.start();
    const routes = keysOf('Routes');
    const streams = keysOf('Streams');
    const methods = keysOf('RpcMethods');
    expect(routes.length).toBeGreaterThan(10);
    expect(streams).toEqual(['/api/notifications/stream', '/api/jobs/:id/stream']);

    for (const route of routes) {
      const [method, template] = route.split(' ') as [string, string];
      const answer = await head(server.server.port, method, filled(template));
      expect(answer.code, route).not.toBe('ROUTE_NOT_FOUND');
    }
    for (const stream of streams) {
      const answer = await head(server.server.port, 'GET', filled(stream));
      expect(answer.code, stream).not.toBe('ROUTE_NOT_FOUND');
    }
    for (const method of methods) {
      const answer = await server.request('POST', '/rpc', { body: { jsonrpc: '2.0', id: 1, method, params: {} } });
      expect((answer.body as { error?: { code: number } }).error?.code, method).not.toBe(-32601);
    }
    // And the check itself sees a route that is not there.
    expect((await head(server.server.port, 'GET', '/api/no-such-route')).code).toBe('ROUTE_NOT_FOUND');
  });
});
