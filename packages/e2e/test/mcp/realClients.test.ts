import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { removeTestdirs, testdir } from '@loadout/kernel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer, TOKEN } from '../server/support.js';
import { mcpTree } from './support.js';

/** The pinned Claude Code and Codex of this package's dev dependencies. */
const CLAUDE = path.resolve(import.meta.dirname, '../../node_modules/.bin/claude');
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
async function setUp(): Promise<{ server: TestServer; run: (binary: string, args: string[], extraEnv?: Record<string, string>) => Promise<string> }> {
  server = await TestServer.start({ tree: mcpTree(), plugins: ['acme'] });
  const scratch = testdir({ home: {}, bin: {} });
  const bin = path.join(scratch, 'bin');
  const install = spawnSync('bash', [INSTALL_BIN, bin], { encoding: 'utf8' });
  expect(install.status, install.stderr).toBe(0);
  expect(fs.statSync(path.join(bin, 'loadout')).mode & 0o111).not.toBe(0);
  const env: NodeJS.ProcessEnv = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: path.join(scratch, 'home'), LANG: 'C.UTF-8' };
  const cwd = path.join(server.home, 'project');
  const run = (binary: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> =>
    new Promise((done, fail) =>
      execFile(binary, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        error === null ? done(stdout) : fail(new Error(`${path.basename(binary)} ${args.join(' ')}: ${error.message}\n${stderr}`)),
      ),
    );
  return { server, run };
}

describe('real clients', () => {
  it('Claude Code connects over HTTP and over stdio (the installed `loadout` command), offline', async () => {
    const { server, run } = await setUp();
    const claude = (...args: string[]): Promise<string> => run(CLAUDE, args);
    await claude('mcp', 'add', '--transport', 'http', 'loadout', `http://127.0.0.1:${server.server.port}/mcp`, '--header', `Authorization: Bearer ${TOKEN}`);
    await claude('mcp', 'add', '-s', 'user', 'loadout-stdio', '-e', `LOADOUT_HOME=${server.home}`, '--', 'loadout', 'mcp');

    const listed = await claude('mcp', 'list');
    expect(listed).toMatch(new RegExp(`^loadout: http://127\\.0\\.0\\.1:${server.server.port}/mcp \\(HTTP\\) - [✓✔] Connected$`, 'm'));
    expect(listed).toMatch(/^loadout-stdio: loadout mcp - [✓✔] Connected$/m);
    // The token went into Claude's own configuration, where `claude mcp add` put it; Loadout printed it nowhere.
    expect(listed).not.toContain(TOKEN);
  });

  it('Codex connects over stdio and over HTTP, offline, and offers each server as a tool namespace', async () => {
    const { server, run } = await setUp();
    await run(CODEX, ['mcp', 'add', 'loadout-stdio', '--env', `LOADOUT_HOME=${server.home}`, '--', 'loadout', 'mcp']);
    await run(CODEX, ['mcp', 'add', 'loadout-http', '--url', `http://127.0.0.1:${server.server.port}/mcp`, '--bearer-token-env-var', 'LOADOUT_BEARER']);
    // `debug prompt-input` connects to every server and builds the model input, without calling a model.
    const input = await run(CODEX, ['debug', 'prompt-input', 'hi'], { LOADOUT_BEARER: TOKEN, OPENAI_BASE_URL: 'http://127.0.0.1:9' });
    const namespaces = /Deferred tool namespaces:((?:\\n- [^\\]+)+)/.exec(input)?.[1] ?? '';
    expect(namespaces).toContain('- mcp__loadout_stdio: Loadout serves this session');
    expect(namespaces).toContain('- mcp__loadout_http: Loadout serves this session');
  });
});
