import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_BINARIES, CLAUDE_CODE_PINNED } from '../runtimes/realClients.js';
import { TestServer, TOKEN } from '../server/support.js';
import { scriptedModel } from './scriptedModel.js';
import { mcpTree } from './support.js';

/** Codex, a dev dependency of this package; Claude Code is each pinned version, from its own package folder. */
const CODEX = path.resolve(import.meta.dirname, '../../node_modules/.bin/codex');
const INSTALL_BIN = path.resolve(path.dirname(CLI_ENTRY), '../../../scripts/install-bin.sh');

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

/**
 * A test server with the MCP workspace, a scratch HOME for the client (no user settings read or
 * written) and `loadout` installed on PATH by the install script; `run` runs a client binary
 * asynchronously, since the server under test answers from this very process.
 */
async function setUp(): Promise<{
  server: TestServer;
  env: NodeJS.ProcessEnv;
  cwd: string;
  run: (binary: string, args: string[], extraEnv?: Record<string, string>) => Promise<string>;
}> {
  server = await TestServer.start({ tree: mcpTree(), plugins: ['acme'] });
  const scratch = testdir({ home: {}, bin: {} });
  const bin = path.join(scratch, 'bin');
  const install = spawnSync('bash', [INSTALL_BIN, bin], { encoding: 'utf8' });
  expect(install.status, install.stderr).toBe(0);
  expect(fs.statSync(path.join(bin, 'loadout')).mode & 0o111).not.toBe(0);
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: path.join(scratch, 'home'),
    LANG: 'C.UTF-8',
  };
  const cwd = path.join(server.home, 'project');
  const run = (binary: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> =>
    new Promise((done, fail) =>
      execFile(
        binary,
        args,
        { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) =>
          error === null ? done(stdout) : fail(new Error(`${path.basename(binary)} ${args.join(' ')}: ${error.message}\n${stderr}`)),
      ),
    );
  return { server, env, cwd, run };
}

describe.each(CLAUDE_CODE_PINNED)('real Claude Code %s', (version) => {
  it('connects over HTTP and over stdio (the installed `loadout` command), offline', async () => {
    const { server, run } = await setUp();
    const claude = (...args: string[]): Promise<string> => run(CLAUDE_CODE_BINARIES[version], args);
    await claude(
      'mcp',
      'add',
      '--transport',
      'http',
      'loadout',
      `http://127.0.0.1:${server.server.port}/mcp`,
      '--header',
      `Authorization: Bearer ${TOKEN}`,
    );
    await claude('mcp', 'add', '-s', 'user', 'loadout-stdio', '-e', `LOADOUT_HOME=${server.home}`, '--', 'loadout', 'mcp');

    const listed = await claude('mcp', 'list');
    expect(listed).toMatch(new RegExp(`^loadout: http://127\\.0\\.0\\.1:${server.server.port}/mcp \\(HTTP\\) - [✓✔] Connected$`, 'm'));
    expect(listed).toMatch(/^loadout-stdio: loadout mcp - [✓✔] Connected$/m);
    // The token went into Claude's own configuration, where `claude mcp add` put it; Loadout printed it nowhere.
    expect(listed).not.toContain(TOKEN);
  }, 120_000);

  it('lists, calls and reads over both transports, driven by a scripted stand-in for the model', async () => {
    const { server, run } = await setUp();
    const claude = (args: string[], extraEnv: Record<string, string> = {}): Promise<string> =>
      run(CLAUDE_CODE_BINARIES[version], args, extraEnv);
    await claude([
      'mcp',
      'add',
      '--transport',
      'http',
      'loadout',
      `http://127.0.0.1:${server.server.port}/mcp`,
      '--header',
      `Authorization: Bearer ${TOKEN}`,
    ]);
    await claude(['mcp', 'add', '-s', 'user', 'loadout-stdio', '-e', `LOADOUT_HOME=${server.home}`, '--', 'loadout', 'mcp']);
    const usage = 'skill://guide/reference/usage.md';
    const model = await scriptedModel([
      { name: 'mcp__loadout__echo', input: { text: 'over http' } },
      { name: 'mcp__loadout-stdio__echo', input: { text: 'over stdio' } },
      { name: 'ReadMcpResourceTool', input: { server: 'loadout', uri: usage } },
      { name: 'ReadMcpResourceTool', input: { server: 'loadout-stdio', uri: usage } },
    ]);
    try {
      await claude(
        [
          '-p',
          'Use the loadout tools.',
          '--output-format',
          'json',
          '--allowedTools',
          'mcp__loadout__echo,mcp__loadout-stdio__echo,ReadMcpResourceTool',
        ],
        // Every MCP tool offered up front, not deferred behind a search the script does not make.
        { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-ant-scripted', ENABLE_TOOL_SEARCH: 'false', DISABLE_AUTOUPDATER: '1' },
      );
      // Listed: both servers' tools were offered to the model (once connected: a first request may come before).
      expect(model.offeredTools.some((tools) => tools.includes('mcp__loadout__echo') && tools.includes('mcp__loadout-stdio__echo'))).toBe(
        true,
      );
      // Called: each echo ran as a job and printed its input.
      expect(model.results.get('toolu_scripted_0')).toContain('{"input":{"text":"over http"}}');
      expect(model.results.get('toolu_scripted_1')).toContain('{"input":{"text":"over stdio"}}');
      // Read: a skill's file, through each server.
      expect(model.results.get('toolu_scripted_2')).toContain('Call it with care.');
      expect(model.results.get('toolu_scripted_3')).toContain('Call it with care.');
    } finally {
      await model.close();
    }
  }, 180_000);
});

describe('real clients', () => {
  it("Codex connects over stdio and over HTTP, offline, and lists each server's tools and resources", async () => {
    const { server, run, env, cwd } = await setUp();
    await run(CODEX, ['mcp', 'add', 'loadout-stdio', '--env', `LOADOUT_HOME=${server.home}`, '--', 'loadout', 'mcp']);
    await run(CODEX, [
      'mcp',
      'add',
      'loadout-http',
      '--url',
      `http://127.0.0.1:${server.server.port}/mcp`,
      '--bearer-token-env-var',
      'LOADOUT_BEARER',
    ]);
    // `codex app-server` answers mcpServerStatus/list once it has connected to every server. It
    // has no working folder of a session (it starts stdio servers in ~/.codex, and offers no
    // roots over HTTP), so both see the global level: the owner's and the plugin's tasks.
    const status = await askCodexAppServer(cwd, { ...env, LOADOUT_BEARER: TOKEN }, 'mcpServerStatus/list');
    const servers = (status as { data: { name: string; tools: Record<string, unknown>; resources: { uri: string }[] }[] }).data;
    for (const name of ['loadout-stdio', 'loadout-http']) {
      const entry = servers.find((candidate) => candidate.name === name);
      expect(Object.keys(entry?.tools ?? {}), name).toEqual(expect.arrayContaining(['echo', 'acme-task']));
      expect(
        entry?.resources.map((resource) => resource.uri),
        name,
      ).toContain('skill://guide/reference/usage.md');
    }
  });
});

/**
 * Asks `codex app-server` (JSON-RPC over stdio) one question after the handshake and answers its
 * result; the server is stopped once the answer is in.
 */
function askCodexAppServer(cwd: string, env: NodeJS.ProcessEnv, method: string): Promise<unknown> {
  return new Promise((done, fail) => {
    const child = spawn(CODEX, ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`codex app-server did not answer ${method}`));
    }, 60_000);
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      buffer += text;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
        if (message.id !== 2) continue;
        clearTimeout(timer);
        child.kill('SIGKILL');
        if (message.error !== undefined) fail(new Error(JSON.stringify(message.error)));
        else done(message.result);
      }
    });
    const send = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'loadout-e2e', title: 'loadout-e2e', version: '0' } } });
    send({ method: 'initialized' });
    send({ id: 2, method, params: {} });
  });
}
