import http from 'node:http';
import { isProcessAlive } from '@loadout/files';
import { testdir } from '@loadout/files/testing';
import { runCli } from '@loadout/cli/testing';
import { describe, expect, it } from 'vitest';
import { TOKEN } from '../server/support.js';
import { closeAfterEach, connectHttp, connectStdio, type McpHarness, resultText, waitFor } from './support.js';

const track = closeAfterEach();

/** What every transport must do, from the acceptance list. */
async function acceptance(h: McpHarness): Promise<void> {
  const { client } = h;
  // Nothing is trusted yet: the project's own task and the plugin's are held, listed as no tool,
  // and a call by name is refused with why; nothing runs.
  const held = (await client.listTools()).tools.map((tool) => tool.name);
  expect(held).toContain('echo');
  expect(held).not.toContain('local');
  expect(held).not.toContain('acme-task');
  await expect(client.callTool({ name: 'local', arguments: {} })).rejects.toMatchObject({
    data: { code: 'CAPABILITY_UNTRUSTED' },
    message: expect.stringContaining('untrusted-project'),
  });
  await expect(client.callTool({ name: 'acme-task', arguments: {} })).rejects.toMatchObject({
    data: { code: 'CAPABILITY_UNTRUSTED' },
    message: expect.stringContaining('loadout plugins approve acme'),
  });
  expect(await h.jobs()).toHaveLength(0);
  await h.trustAll();
  await waitFor(() => h.notices.includes('tools'), 'tools/list_changed after trusting the project and approving the plugin');
  await waitFor(async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    return names.includes('local') && names.includes('acme-task');
  }, "the project's and the plugin's tasks to be listed as tools");
  const toolNotices = (): number => h.notices.filter((notice) => notice === 'tools').length;
  const base = toolNotices();

  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  expect(tools).toEqual(expect.arrayContaining(['echo', 'fails', 'sleeper', 'acme-task', 'local']));

  const owner = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  expect(owner.isError).toBeFalsy();
  expect(JSON.parse(resultText(owner))).toEqual({ input: { text: 'hello' } });
  const plugin = await client.callTool({ name: 'acme-task', arguments: {} });
  expect(resultText(plugin)).toBe('from acme\n');
  const local = await client.callTool({ name: 'local', arguments: {} });
  expect(resultText(local)).toBe('local to the project\n');
  const jobs = await h.jobs();
  for (const [result, dirName] of [
    [owner, 'echo'],
    [plugin, 'acme-task'],
    [local, 'local'],
  ] as const) {
    expect(jobs.find((job) => job.id === result._meta?.['loadout/jobId'])).toMatchObject({
      taskDirName: dirName,
      status: 'succeeded',
      project: h.project,
    });
  }
  expect(jobs).toHaveLength(3);

  const resources = (await client.listResources()).resources.map((resource) => resource.uri);
  expect(resources).toEqual(
    expect.arrayContaining([
      'skill://guide/SKILL.md',
      'skill://guide/reference/usage.md',
      'skill://acme/acme-skill/SKILL.md',
      'skill://project-skill/SKILL.md',
      'loadout://session/skills-block',
    ]),
  );
  expect((await client.readResource({ uri: 'skill://guide/reference/usage.md' })).contents).toEqual([
    { uri: 'skill://guide/reference/usage.md', mimeType: 'text/markdown', text: '# Usage\nCall it with care.\n' },
  ]);

  const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
  expect(prompts).toEqual(expect.arrayContaining(['skill:guide', 'skill:acme-skill', 'skill:project-skill', 'skill:owner-skill']));
  expect((await client.getPrompt({ name: 'skill:guide' })).messages).toEqual([
    { role: 'user', content: { type: 'text', text: '# Guide\nRead reference/usage.md first.\n' } },
  ]);

  await h.disablePlugin('acme');
  await waitFor(() => toolNotices() > base, 'tools/list_changed after disabling the plugin');
  const after = (await client.listTools()).tools.map((tool) => tool.name);
  expect(after).not.toContain('acme-task');
  expect(after).toContain('echo');
  await expect(client.callTool({ name: 'acme-task', arguments: {} })).rejects.toMatchObject({
    data: { code: 'CAPABILITY_OFF' },
    message: expect.stringContaining('its plugin "acme" is disabled (decided by plugin-disabled)'),
  });

  await h.switchOffForProject('task', 'echo');
  await waitFor(() => toolNotices() > base + 1, 'tools/list_changed after switching a task off');
  await expect(client.callTool({ name: 'echo', arguments: { text: 'again' } })).rejects.toMatchObject({
    data: { code: 'CAPABILITY_OFF' },
    message: expect.stringMatching(/switched off for the project .* \(decided by project-override\)/),
  });
  expect(await h.jobs()).toHaveLength(3);
}

describe('MCP over stdio: loadout mcp', () => {
  it('serves the live session: tools, resources, prompts, changes and refusals', async () => {
    await acceptance(await track(connectStdio({ trusted: false })));
  });

  it('cancels a running call when the client goes away: the process group stops and the job fails', async () => {
    const harness = await track(connectStdio());
    const pid = harness.transport.pid as number;
    let pids: { pid: number; child: number } | null = null;
    const call = harness.client.callTool({ name: 'sleeper', arguments: {} }, undefined, {
      onprogress: (notice) => {
        if (notice.message?.includes('"child"') === true) pids = JSON.parse(notice.message) as { pid: number; child: number };
      },
    });
    call.catch(() => undefined);
    await waitFor(() => pids !== null, 'the task to start');
    await harness.client.close();
    await waitFor(() => !isProcessAlive(pid), 'loadout mcp to exit');
    const seen = pids as unknown as { pid: number; child: number };
    expect(isProcessAlive(seen.pid) || isProcessAlive(seen.child)).toBe(false);
    const [job] = await harness.jobs();
    expect(job).toMatchObject({ taskDirName: 'sleeper', status: 'failed', error: 'cancelled by the MCP client' });
  });

  it('refuses a --project that does not exist, as every command refuses', () => {
    const run = runCli(testdir(), ['mcp', '--project', '/no/such/folder', '--json']);
    expect(run.status).toBe(1);
    expect(run.json()).toEqual({ error: { code: 'PROJECT_NOT_FOUND', message: expect.stringContaining('/no/such/folder') } });
  });
});

describe('MCP over Streamable HTTP: /mcp on loadout serve', () => {
  it('serves the live session: tools, resources, prompts, changes and refusals', async () => {
    await acceptance(await track(connectHttp({ trusted: false })));
  });

  it('takes the project from ?project= when the client offers no roots, and the global level without either', async () => {
    const harness = await track(connectHttp({ roots: false }));
    expect((await harness.client.listTools()).tools.map((tool) => tool.name)).not.toContain('local');
    const answer = await harness.server.request('POST', `/mcp?project=${encodeURIComponent(harness.project)}`, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(answer.status).toBe(200);
    const session = answer.headers['mcp-session-id'] as string;
    const list = await harness.server.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(list.text).toContain('"local"');
    const missing = await harness.server.request('POST', '/mcp?project=%2Fno%2Fsuch', {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: -32602, message: expect.stringContaining('/no/such') } } });
  });

  it('refuses a missing or wrong token (401) and a foreign Origin or Host (403) before reading anything', async () => {
    const { server } = await track(connectHttp());
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const accept = { accept: 'application/json, text/event-stream' };
    for (const method of ['POST', 'GET', 'DELETE']) {
      expect(
        await server.request(method, '/mcp', { token: null, headers: accept, ...(method === 'POST' ? { body: initialize } : {}) }),
        method,
      ).toMatchObject({
        status: 401,
        body: { error: { code: 'TOKEN_REQUIRED' } },
      });
    }
    expect(await server.request('POST', '/mcp', { token: 'wrong-token-0123456789', body: initialize, headers: accept })).toMatchObject({
      status: 401,
    });
    expect(await server.request('POST', '/mcp', { body: initialize, headers: { ...accept, origin: 'http://evil.example' } })).toMatchObject(
      {
        status: 403,
        body: { error: { code: 'ORIGIN_REFUSED' } },
      },
    );
    expect(await server.request('POST', '/mcp', { body: initialize, headers: { ...accept, host: 'evil.example' } })).toMatchObject({
      status: 403,
      body: { error: { code: 'HOST_REFUSED' } },
    });
    // A body the guard never reads: refused the same way, and it does not matter that it is not JSON.
    expect(await server.request('POST', '/mcp', { token: null, raw: '{not json', headers: accept })).toMatchObject({ status: 401 });
    expect(await server.request('POST', '/mcp', { raw: '{not json', headers: accept })).toMatchObject({
      status: 400,
      body: { error: { code: -32700 } },
    });
    expect(await server.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: accept })).toMatchObject({
      status: 400,
    });
    expect(
      await server.request('POST', '/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { ...accept, 'mcp-session-id': 'nope' },
      }),
    ).toMatchObject({
      status: 404,
      body: { error: { code: -32001 } },
    });
  });

  it('cancels a running call when its client drops the request', async () => {
    const harness = await track(connectHttp());
    const port = harness.server.server.port;
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const init = await harness.server.request('POST', `/mcp?project=${encodeURIComponent(harness.project)}`, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      headers,
    });
    const session = init.headers['mcp-session-id'] as string;
    await harness.server.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', method: 'notifications/initialized' },
      headers: { ...headers, 'mcp-session-id': session },
    });
    const pids = await new Promise<{ pid: number; child: number }>((done, fail) => {
      const request = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { ...headers, 'mcp-session-id': session } },
        (response) => {
          let seen = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            seen += chunk;
            const match = /\\"child\\":(\d+)/.exec(seen);
            const pid = /\\"pid\\":(\d+)/.exec(seen);
            if (match !== null && pid !== null) {
              request.destroy();
              done({ pid: Number(pid[1]), child: Number(match[1]) });
            }
          });
        },
      );
      request.on('error', () => undefined);
      request.on('close', () => fail(new Error('the stream ended before the task printed')));
      request.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'sleeper', arguments: {}, _meta: { progressToken: 'p1' } },
        }),
      );
    });
    await waitFor(async () => (await harness.jobs()).some((job) => job.status === 'failed'), 'the job to be cancelled');
    expect((await harness.jobs()).find((job) => job.taskDirName === 'sleeper')).toMatchObject({
      status: 'failed',
      error: 'cancelled by the MCP client',
    });
    await waitFor(() => !isProcessAlive(pids.pid) && !isProcessAlive(pids.child), 'the process group to stop');
  });
});
