import { runCli } from '@loadout/cli/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, workspaceTree } from '../server/support.js';

// Item 6 of the hardening issue: what an MCP server document carries must not be served as written,
// and `?project=` must not let a process without the token look into folders it cannot open.

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

const SECRETS = ['sk-live-0123', 'abc123secret', 'qwerty', 'ghp_x', 'Bearer abc', 'zzz-url-token'];

/** A workspace whose owner keeps an MCP server with credentials in its arguments and URL. */
function leakyTree() {
  const tree = workspaceTree();
  const capabilities = tree.capabilities as Record<string, unknown>;
  return {
    ...tree,
    capabilities: {
      ...capabilities,
      servers: {
        'leaky.json': JSON.stringify({
          name: 'leaky',
          command: 'npx',
          args: [
            '-y',
            'mcp-remote',
            '--token=sk-live-0123',
            '--api-key',
            'abc123secret',
            'https://mcp.example/sse?api_key=qwerty&region=eu',
            'GITHUB_TOKEN=ghp_x',
            '--header',
            'Authorization: Bearer abc',
          ],
        }),
        'remote.json': JSON.stringify({ name: 'remote', url: 'https://mcp.example/mcp?token=zzz-url-token&team=core' }),
      },
    },
  };
}

describe('11.6 credential-shaped MCP arguments and URL queries', () => {
  it('11.6 are redacted in GET /api/session, `loadout session --json` and mcp.list', async () => {
    server = await TestServer.start({ tree: leakyTree() });
    const session = await server.request('GET', '/api/session', { token: null });
    const list = await server.request('POST', '/rpc', { body: { jsonrpc: '2.0', id: 1, method: 'mcp.list', params: {} } });
    const cli = runCli(server.home, ['session', '--json']);
    expect(cli.status).toBe(0);
    for (const [where, text] of [
      ['/api/session', session.text],
      ['mcp.list', list.text],
      ['session --json', cli.stdout],
    ] as const) {
      for (const secret of SECRETS) expect(text, `${where} shows ${secret}`).not.toContain(secret);
    }
    const leaky = (session.body as { servers: { id: string; args: string[] }[] }).servers.find((record) => record.id === 'leaky');
    // What is not a credential stays readable: the owner must still recognise the server.
    expect(leaky?.args).toEqual([
      '-y',
      'mcp-remote',
      '--token=[redacted]',
      '--api-key',
      '[redacted]',
      'https://mcp.example/sse?api_key=[redacted]&region=eu',
      'GITHUB_TOKEN=[redacted]',
      '--header',
      'Authorization: [redacted]',
    ]);
    expect(JSON.stringify(session.body)).toContain('https://mcp.example/mcp?token=[redacted]&team=core');
  });
});

describe('11.6 ?project= probing', () => {
  it('11.6 reads that name a project need the token; the global session stays open', async () => {
    server = await TestServer.start();
    const project = testdir({
      '.agents': { skills: { private: { 'SKILL.md': '---\nname: private-plan\ndescription: Secret plans.\n---\nBody.\n' } } },
    });
    const query = `?project=${encodeURIComponent(project)}`;
    for (const url of [
      `/api/session${query}`,
      `/api/tasks${query}`,
      `/api/tasks/echo${query}`,
      '/api/session?project=%2Fno%2Fsuch%2Ffolder',
      '/api/session?project=',
    ]) {
      const answer = await server.request('GET', url, { token: null });
      expect([url, answer.status], answer.text).toEqual([url, 401]);
      expect(answer.body).toMatchObject({ error: { code: 'TOKEN_REQUIRED' } });
      expect(answer.text).not.toContain('private-plan');
      expect(answer.text).not.toContain('PROJECT_NOT_FOUND');
    }
    // A cross-site <img> sends neither the token nor an Origin: it is refused the same way.
    expect((await server.request('GET', `/api/session${query}`, { token: null, headers: { 'sec-fetch-dest': 'image' } })).status).toBe(401);
    const withToken = await server.request('GET', `/api/session${query}`);
    expect(withToken.status).toBe(200);
    expect(withToken.text).toContain('private-plan');
    expect((await server.request('GET', '/api/session', { token: null })).status).toBe(200);
    expect((await server.request('GET', '/api/tasks', { token: null })).status).toBe(200);
  });
});
