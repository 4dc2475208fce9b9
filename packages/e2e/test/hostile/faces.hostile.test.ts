import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { sqlBackends, TEST_DATABASE_URL } from '@loadout/db/testing';
import { taskTree } from '@loadout/jobs/testing';
import { resolve } from '@loadout/kernel';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { TrustService } from '@loadout/trust';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, TOKEN, workspaceTree } from '../server/support.js';
import { serveBuilt, stopBuiltServers } from './support.js';

// Issue 37, the faces: one answer size, one JSON depth and one token rule for every face (`/rpc`,
// `/mcp`, the HTTP routes, the documents plugins bring), redaction of what token-free reads show,
// and a bounded wait when PostgreSQL does not answer.

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  await stopBuiltServers();
  removeTestdirs();
});

const MiB = 1024 * 1024;

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();
}

describe('37 M5 GET /api/plugins/:name/diff', () => {
  it('37 M5 needs the token, carries at most 1 MiB of diff, and computes a bounded number at once', async () => {
    const tree = workspaceTree();
    const plugin = { tasks: { big: taskTree({ name: 'big', implementation: 'run.sh' }, { 'run.sh': 'echo v1\n' }) } };
    server = await TestServer.start({ tree: { ...tree, plugins: { acme: plugin } } });
    const dir = path.join(server.home, 'plugins', 'acme');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@loadout.invalid', 'commit', '-q', '-m', 'v1');
    const v1 = git(dir, 'rev-parse', 'HEAD');
    resolve(server.container, PluginRegistry).add({ name: 'acme', url: 'https://example.invalid/acme.git', ref: null, commit: v1 });
    await resolve(server.container, TrustService).approvePlugin('acme');
    // The update: a script of 6 MiB, every line of it in the diff.
    fs.writeFileSync(
      path.join(dir, 'tasks', 'big', 'run.sh'),
      `${'echo "a line of the new script, long enough to weigh something"\n'.repeat(100_000)}`,
    );
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@loadout.invalid', 'commit', '-q', '-am', 'v2');

    // A page on another site can make a browser send this GET (an <img>), with no header and no token.
    const anonymous = await server.request('GET', '/api/plugins/acme/diff', { token: null });
    expect(anonymous.status).toBe(401);

    const one = await server.request('GET', '/api/plugins/acme/diff');
    expect(one.status).toBe(200);
    const answer = one.body as { diff: string; truncated: boolean };
    expect(answer.truncated).toBe(true);
    expect(Buffer.byteLength(answer.diff)).toBeLessThanOrEqual(MiB);
    expect(answer.diff).toContain('+echo "a line of the new script');

    const many = await Promise.all(Array.from({ length: 30 }, () => server!.request('GET', '/api/plugins/acme/diff')));
    const busy = many.filter((item) => item.status === 503);
    expect(many.every((item) => item.status === 200 || item.status === 503)).toBe(true);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]?.body).toMatchObject({ error: { code: 'PLUGIN_DIFF_BUSY' } });
    for (const item of many.filter((candidate) => candidate.status === 200)) expect(item.text.length).toBeLessThan(MiB + 64 * 1024);
  });
});

/** A raw MCP client over HTTP: what a hostile caller sends, with no SDK client to shape it. */
async function mcpSession(port: number): Promise<(body: unknown) => Promise<{ status: number; messages: unknown[] }>> {
  const send = async (body: unknown, session?: string): Promise<{ status: number; messages: unknown[]; session: string | null }> => {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session === undefined ? {} : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' }),
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)) as unknown)
      : text === ''
        ? []
        : [JSON.parse(text) as unknown];
    return { status: response.status, messages: messages.flat(), session: response.headers.get('mcp-session-id') };
  };
  const started = await send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
  });
  const session = started.session ?? '';
  expect(session).not.toBe('');
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  return (body) => send(body, session);
}

describe('37 M6 /mcp answers', () => {
  it('37 M6 a batch holds at most 20 calls, and its answers stop at the one answer size', async () => {
    const files: TreeDescription = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`part-${String(i).padStart(2, '0')}.txt`, 'x'.repeat(MiB - 1024)]),
    );
    const tree = workspaceTree();
    const capabilities = tree.capabilities as TreeDescription;
    server = await TestServer.start({
      tree: {
        ...tree,
        capabilities: {
          ...capabilities,
          skills: { heavy: { 'SKILL.md': '---\nname: heavy\ndescription: Big files.\n---\nBody.\n', ...files } },
        },
      },
    });
    const send = await mcpSession(server.server.port);
    const read = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'resources/read',
      params: { uri: `skill://heavy/part-${String(id % 20).padStart(2, '0')}.txt` },
    });

    const hundred = await send(Array.from({ length: 100 }, (_, i) => read(i)));
    expect(hundred.status).toBe(400);
    expect(hundred.messages[0]).toMatchObject({ error: { code: -32600, message: expect.stringContaining('at most 20 calls') } });

    const twenty = await send(Array.from({ length: 20 }, (_, i) => read(i)));
    const answers = twenty.messages as { id: number; result?: unknown; error?: { data?: { code?: string } } }[];
    expect(answers).toHaveLength(20);
    const answered = answers.filter((item) => item.result !== undefined);
    const refused = answers.filter((item) => item.error?.data?.code === 'RESPONSE_TOO_LARGE');
    expect(answered.length + refused.length).toBe(20);
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(JSON.stringify(answered).length).toBeLessThanOrEqual(16 * MiB);
  });
});

/** `[[[…0…]]]`, `depth` arrays deep, as JSON text (built as text: a value that deep cannot be serialised). */
const deepArray = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

describe('37 L5 JSON depth on every face', () => {
  it('37 L5 /mcp refuses arguments nested deeper than 100 levels with a clear error, not a stack overflow', async () => {
    server = await TestServer.start();
    const send = await mcpSession(server.server.port);
    const answer = await send(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hello","arguments":{"x":${deepArray(200_000)}}}}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.messages[0]).toMatchObject({ error: { code: -32600, message: expect.stringContaining('deeper than 100 levels') } });
    // The server is whole: the next call is answered.
    const list = await send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect(list.messages[0]).toMatchObject({ id: 8, result: { tools: expect.any(Array) } });
  });

  it('37 L5 a marketplace whose entries nest too deep is refused with a coded error naming the depth, not INTERNAL', () => {
    const home = testdir({ capabilities: {}, plugins: {} });
    const index = `{"name":"deep","owner":{"name":"x"},"plugins":[{"name":"p","source":"./p","mcpServers":{"x":${deepArray(200_000)}}}]}`;
    const repo = testdir({ '.claude-plugin': { 'marketplace.json': index }, p: { 'README.md': 'p\n' } });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=T', '-c', 'user.email=t@loadout.invalid', 'commit', '-q', '-m', 'index');
    const added = runCli(home, ['marketplace', 'add', repo, '--json']);
    expect(added.status).toBe(1);
    expect(added.stdout + added.stderr).not.toContain('INTERNAL');
    expect(added.stdout + added.stderr).not.toContain('call stack');
    expect(added.json()).toMatchObject({
      error: { code: 'MARKETPLACE_INDEX_INVALID', message: expect.stringContaining('deeper than 100 levels') },
    });
  });
});

describe('37 L7 redaction of what token-free reads show', () => {
  it('37 L7 a password after -p and a webhook secret in a URL path are redacted in GET /api/session and GET /api/audit', async () => {
    const tree = workspaceTree();
    const capabilities = tree.capabilities as TreeDescription;
    const webhook = 'https://hooks.slack.com/services/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';
    server = await TestServer.start({
      tree: {
        ...tree,
        capabilities: {
          ...capabilities,
          servers: {
            'db.json': JSON.stringify({ name: 'db', command: 'mysql-mcp', args: ['-u', 'root', '-p', 'hunter2horse', '--port', '3306'] }),
            'alerts.json': JSON.stringify({
              name: 'alerts',
              command: 'notify-mcp',
              args: ['--webhook', webhook, '-pS3cr3tPass', '-p', '8080'],
            }),
          },
        },
      },
    });
    const session = await server.request('GET', '/api/session', { token: null });
    const audit = await server.request('GET', '/api/audit');
    expect(session.status).toBe(200);
    expect(audit.status).toBe(200);
    for (const [where, text] of [
      ['/api/session', session.text],
      ['/api/audit', audit.text],
    ] as const) {
      for (const secret of ['hunter2horse', 'Xk9vQm2LpR7sT4wZ8yN1cD3f', 'S3cr3tPass'])
        expect(text, `${where} shows ${secret}`).not.toContain(secret);
    }
    const servers = (session.body as { servers: { id: string; args: string[] }[] }).servers;
    // What is not a credential stays readable: the port after -p, the webhook's host and team.
    expect(servers.find((record) => record.id === 'db')?.args).toEqual(['-u', 'root', '-p', '[redacted]', '--port', '3306']);
    expect(servers.find((record) => record.id === 'alerts')?.args).toEqual([
      '--webhook',
      'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/[redacted]',
      '-p[redacted]',
      '-p',
      '8080',
    ]);
  });
});

describe('37 L8 GET /api/trust', () => {
  it('37 L8 lists trusted project paths only to a holder of the token', async () => {
    server = await TestServer.start();
    const project = path.join(server.home, 'project');
    fs.mkdirSync(project);
    expect((await server.request('POST', '/api/trust', { body: { project } })).status).toBe(201);
    const anonymous = await server.request('GET', '/api/trust', { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain(project);
    const owner = await server.request('GET', '/api/trust');
    expect(owner.status).toBe(200);
    expect(owner.text).toContain(fs.realpathSync(project));
  });
});

const postgres = sqlBackends.find((backend) => backend.name === 'postgres');

/**
 * A TCP relay to PostgreSQL that can go silent: after `cut()` it forwards nothing either way and
 * answers no new connection, as a server behind a dead link or a stopped host does.
 */
async function silentRelay(target: URL): Promise<{ url: string; cut: () => void; close: () => void }> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    if (silent) return;
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk) => {
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((done) => relay.listen(0, '127.0.0.1', done));
  const url = new URL(target.href);
  url.port = String((relay.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    cut: () => {
      silent = true;
    },
    close: () => {
      relay.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe.skipIf(postgres === undefined || !postgres.available)('37 L11 PostgreSQL that does not answer', () => {
  it('37 L11 token-free reads answer a coded 503 within the bound instead of waiting without limit', { timeout: 120_000 }, async () => {
    const name = `faces_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const database = new URL(TEST_DATABASE_URL);
    database.pathname = `/${name}`;
    const relay = await silentRelay(database);
    try {
      const home = testdir(workspaceTree());
      const served = await serveBuilt(home, [], { LOADOUT_DATABASE_URL: relay.url });
      const read = (pathname: string) =>
        fetch(`${served.url}${pathname}`, { signal: AbortSignal.timeout(40_000) }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as unknown,
        }));
      expect((await read('/api/session')).status).toBe(200);

      relay.cut();
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => read(`/api/session?kinds=${i % 2 === 0 ? 'tasks' : 'skills'}`)),
      );
      const seconds = (Date.now() - started) / 1000;
      // Some reads are served from what the server already knew; none waits on the database for ever.
      const unavailable = answers.filter((answer) => answer.status === 503);
      expect(unavailable.length).toBeGreaterThan(0);
      for (const answer of unavailable) expect(answer.body).toMatchObject({ error: { code: 'DATABASE_UNAVAILABLE' } });
      expect(answers.every((answer) => answer.status === 200 || answer.status === 503)).toBe(true);
      expect(seconds).toBeLessThan(35);
    } finally {
      await stopBuiltServers();
      relay.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
