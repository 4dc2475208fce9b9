import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { type McpConfigFile, openMcpConfig } from '@loadout/runtimes';
import { afterEach, describe, expect, it } from 'vitest';
import { clientMcp } from './realClients.js';

afterEach(() => removeTestdirs());

const require = createRequire(import.meta.url);

/** A one-tool MCP server on stdio, built on the official SDK, so a client that starts it reports it connected. */
function serverScript(): string {
  const sdk = (entry: string): string => JSON.stringify(require.resolve(`@modelcontextprotocol/sdk/${entry}`));
  return [
    `const { McpServer } = require(${sdk('server/mcp.js')});`,
    `const { StdioServerTransport } = require(${sdk('server/stdio.js')});`,
    "const server = new McpServer({ name: 'e2e', version: '1.0.0' });",
    "server.registerTool('ping', { description: 'Answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));",
    'server.connect(new StdioServerTransport());',
    '',
  ].join('\n');
}

const doc = (definition: Record<string, unknown>): string => `${JSON.stringify({ name: 'A server', ...definition }, null, 2)}\n`;

/**
 * A new user's machine: a scratch home whose Claude Code and Codex configurations already hold a
 * server and settings of the user's own (Codex trusts the project), a Loadout workspace with three
 * global servers (`fs` on stdio, `gh` passing a token through by reference, `remote` over
 * Streamable HTTP with its token by reference), a
 * plugin `tools` whose server `lint` runs a script inside the plugin, and a project with a server
 * `proj` of its own.
 */
function newUser(options: { trusted?: boolean } = {}) {
  const base = testdir({});
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'workspace');
  const project = gitRepo(path.join(home, 'work', 'app'), {
    'README.md': 'app\n',
    'server.cjs': serverScript(),
    '.agents': { servers: { 'proj.json': doc({ command: 'node', args: ['server.cjs'] }) } },
  });
  const script = path.join(base, 'tools', 'server.cjs');
  fs.mkdirSync(path.dirname(script), { recursive: true });
  fs.writeFileSync(script, serverScript());
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), {
    servers: {
      'fs.json': doc({ command: 'node', args: [script], env: { LOG_LEVEL: 'verbose-7f3a' } }),
      'remote.json': doc({ url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${EXAMPLE_TOKEN}' } }),
      'gh.json': doc({ command: 'node', args: [script], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } }),
    },
  });
  const plugin = gitRepo(path.join(base, 'sources', 'tools'), {
    'lint.cjs': serverScript(),
    servers: { 'lint.json': doc({ command: 'node', args: ['${PLUGIN_ROOT}/lint.cjs'] }) },
  });
  const claudeJson = `${JSON.stringify({ numStartups: 3, userID: 'e2e', mcpServers: { mine: { type: 'stdio', command: 'node', args: [script], env: {} } } }, null, 2)}`;
  const codexToml = `# my own settings\nmodel = "gpt-5"   # keep me\n\n[projects."${project}"]\ntrust_level = "trusted"\n\n[mcp_servers.mine]\ncommand = 'node'\nargs = [ "${script}" ]\n\n[tui]\nnotifications = true\n`;
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude.json'), claudeJson);
  fs.writeFileSync(path.join(home, '.codex', 'config.toml'), codexToml);
  const loadout = (args: readonly string[], env: Record<string, string> = {}) => runCli(workspace, args, { HOME: home, ...env });
  const trusted = options.trusted !== false;
  const installed = loadout(['plugins', 'install', pathToFileURL(plugin).href, '--name', 'tools', ...(trusted ? ['--yes'] : []), '--json']);
  expect(installed.status, installed.stderr).toBe(0);
  if (trusted) expect(loadout(['trust', project]).status).toBe(0);
  return {
    base,
    home,
    workspace,
    project,
    loadout,
    claudeJson,
    codexToml,
    claude: (cwd: string, ...args: string[]) => clientMcp('claude', home, cwd, args),
    codex: (cwd: string, ...args: string[]) => clientMcp('codex', home, cwd, args),
  };
}

type User = ReturnType<typeof newUser>;

function codexNames(user: User): string[] {
  const listed = user.codex(user.project, 'list', '--json');
  expect(listed.status, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { name: string }[]).map((server) => server.name);
}

/** A file's text now, without the entries Loadout manages in it (its manifest says which, now). */
function withoutManaged(user: User, target: McpConfigFile): string {
  const manifestFile = path.join(user.workspace, '.loadout', 'runtimes', 'mcp-manifest.json');
  const entries = fs.existsSync(manifestFile)
    ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { entries: { file: string; name: string }[] }).entries
    : [];
  const document = openMcpConfig(target, fs.readFileSync(target.file, 'utf8'), target.file);
  for (const entry of entries) if (entry.file === target.file) document.remove(entry.name);
  return document.text();
}

/** sha256 over every file under `dir` but the database, which opening a session may touch. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(current, entry.name);
      if (/loadout\.db/.test(entry.name)) continue;
      hash.update(`${path.relative(dir, full)}\0`);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) hash.update(fs.readFileSync(full));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

const both = ['--runtime', 'claude-code', '--runtime', 'codex'];

/** The messages of every finding with `code` anywhere in a printed plan. */
function findingsOf(value: unknown, code: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => findingsOf(item, code));
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own = record.code === code && typeof record.message === 'string' ? [record.message] : [];
  return [...own, ...Object.values(record).flatMap((item) => findingsOf(item, code))];
}

describe('apply writes MCP servers the real clients load', () => {
  it('Claude Code and Codex list exactly the servers that are on, in the scope of their level', () => {
    const user = newUser();
    const applied = user.loadout(['apply', '--project', user.project, ...both, '--json']);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('verbose-7f3a');

    const fs_ = user.claude(user.project, 'get', 'fs');
    expect(fs_.status, fs_.stderr).toBe(0);
    expect(fs_.stdout).toContain('Scope: User config');
    expect(fs_.stdout).toContain('Type: stdio');
    expect(fs_.stdout).toContain('✔ Connected');
    const proj = user.claude(user.project, 'get', 'proj');
    expect(proj.stdout).toContain('Scope: Project config (shared via .mcp.json)');
    const lint = user.claude(user.project, 'get', 'lint');
    // The plugin's root was expanded when written: Claude Code starts the plugin's own script.
    expect(lint.stdout).toContain(`Args: ${fs.realpathSync(path.join(user.workspace, 'plugins', 'tools'))}/lint.cjs`);
    expect(lint.stdout).toContain('✔ Connected');

    const remote = user.codex(user.project, 'get', 'remote', '--json');
    expect(remote.status, remote.stderr).toBe(0);
    expect(JSON.parse(remote.stdout)).toMatchObject({
      name: 'remote',
      transport: { type: 'streamable_http', url: 'https://mcp.example.com/mcp', bearer_token_env_var: 'EXAMPLE_TOKEN' },
    });
    // Codex does not expand ${VAR}: the reference became a variable it passes through.
    expect(JSON.parse(user.codex(user.project, 'get', 'gh', '--json').stdout)).toMatchObject({
      transport: { type: 'stdio', env: null, env_vars: ['GITHUB_TOKEN'] },
    });
    expect(codexNames(user)).toEqual(['fs', 'gh', 'lint', 'mine', 'proj', 'remote']);
  });

  it("holds a project's server and an unapproved plugin's out of both runtimes until trusted, and retires them when held again", () => {
    const user = newUser({ trusted: false });
    const held = user.loadout(['apply', '--project', user.project, ...both, '--json']);
    expect(held.status, held.stderr).toBe(0);
    const untrusted = findingsOf(JSON.parse(held.stdout), 'CAPABILITY_UNTRUSTED');
    expect(untrusted).toEqual(
      expect.arrayContaining([
        expect.stringContaining('server "proj" is skipped: project'),
        expect.stringContaining('server "lint" is skipped: plugin tools is not approved'),
      ]),
    );
    expect(codexNames(user)).toEqual(['fs', 'gh', 'mine', 'remote']);
    expect(user.claude(user.project, 'get', 'proj').status).not.toBe(0);
    expect(fs.existsSync(path.join(user.project, '.mcp.json'))).toBe(false);

    expect(user.loadout(['trust', user.project]).status).toBe(0);
    expect(user.loadout(['plugins', 'approve', 'tools']).status).toBe(0);
    expect(user.loadout(['apply', '--project', user.project, ...both]).status).toBe(0);
    expect(codexNames(user)).toEqual(['fs', 'gh', 'lint', 'mine', 'proj', 'remote']);
    expect(user.claude(user.project, 'get', 'proj').stdout).toContain('Scope: Project config (shared via .mcp.json)');

    // Untrusted again: the next apply retires the project's server it wrote.
    expect(user.loadout(['untrust', user.project]).status).toBe(0);
    expect(user.loadout(['apply', '--project', user.project, ...both]).status).toBe(0);
    expect(codexNames(user)).toEqual(['fs', 'gh', 'lint', 'mine', 'remote']);
  });

  it("disabling a plugin removes its server; the user's entries and settings stay byte for byte", () => {
    const user = newUser();
    expect(user.loadout(['apply', '--project', user.project, ...both]).status).toBe(0);
    const claudeFile: McpConfigFile = {
      file: path.join(user.home, '.claude.json'),
      scope: 'user',
      format: 'json',
      container: 'mcpServers',
      writes: true,
      note: '',
      sharedLock: true,
      createMode: 0o600,
    };
    const codexFile: McpConfigFile = {
      ...claudeFile,
      file: path.join(user.home, '.codex', 'config.toml'),
      format: 'toml',
      container: 'mcp_servers',
      sharedLock: false,
    };

    // Claude Code rewrites its own file when it runs (first start time, migrations …): that is the user's too.
    expect(user.claude(user.project, 'get', 'lint').status).toBe(0);
    const claudeBefore = withoutManaged(user, claudeFile);
    const codexBefore = withoutManaged(user, codexFile);
    expect(user.loadout(['plugins', 'disable', 'tools']).status).toBe(0);
    const applied = user.loadout(['apply', '--project', user.project, ...both, '--json']);
    expect(applied.status, applied.stderr).toBe(0);
    expect(
      applied
        .json<{ retired: { name: string; runtime: string }[] }>()
        .retired.map((entry) => `${entry.runtime}:${entry.name}`)
        .sort(),
    ).toEqual(['claude-code:lint', 'codex:lint']);
    expect(user.claude(user.project, 'get', 'lint').status).toBe(1);
    expect(codexNames(user)).toEqual(['fs', 'gh', 'mine', 'proj', 'remote']);
    expect(withoutManaged(user, claudeFile)).toBe(claudeBefore);
    expect(withoutManaged(user, codexFile)).toBe(codexBefore);
    expect(codexBefore).toBe(user.codexToml);

    // Everything off: the files are exactly the user's again, byte for byte.
    fs.rmSync(path.join(user.workspace, 'capabilities', 'servers'), { recursive: true });
    fs.rmSync(path.join(user.project, '.agents', 'servers'), { recursive: true });
    expect(user.loadout(['apply', '--project', user.project, ...both]).status).toBe(0);
    expect(fs.readFileSync(claudeFile.file, 'utf8')).toBe(claudeBefore);
    expect(fs.readFileSync(codexFile.file, 'utf8')).toBe(user.codexToml);
    expect(fs.existsSync(path.join(user.project, '.mcp.json'))).toBe(false);
    expect(codexNames(user)).toEqual(['mine']);
  });

  it('--dry-run and --check write nothing, and --check exits 1 on drift', () => {
    const user = newUser();
    const before = treeHash(user.base);
    const dry = user.loadout(['apply', '--project', user.project, ...both, '--dry-run', '--json']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.json<{ changeCount: number }>().changeCount).toBe(10);
    expect(user.loadout(['apply', '--project', user.project, ...both, '--check']).status).toBe(1);
    expect(treeHash(user.base)).toBe(before);

    expect(user.loadout(['apply', '--project', user.project, ...both]).status).toBe(0);
    expect(user.loadout(['apply', '--project', user.project, ...both, '--check']).status).toBe(0);
    fs.writeFileSync(path.join(user.workspace, 'capabilities', 'servers', 'remote.json'), doc({ url: 'https://mcp.example.com/v2/mcp' }));
    const drift = user.loadout(['apply', '--project', user.project, ...both, '--check', '--json']);
    expect(drift.status).toBe(1);
    expect(drift.json<{ upToDate: boolean }>().upToDate).toBe(false);
  });
});

describe('the MCP bridge', () => {
  it('registers Loadout in both clients, by absolute path or as `loadout` on PATH, and takes it away again', () => {
    const user = newUser();
    const bare = { PATH: '/usr/bin:/bin' };
    expect(user.loadout(['apply', ...both, '--mcp-bridge'], bare).status).toBe(0);
    const claude = user.claude(user.home, 'get', 'loadout');
    expect(claude.stdout).toContain('Scope: User config');
    expect(claude.stdout).toContain('Type: stdio');
    expect(claude.stdout).toContain(`Command: ${process.execPath}`);
    expect(claude.stdout).toMatch(/Args: \S+\/cli\/dist\/main\.js mcp/);
    // Claude Code starts it: Loadout's own stdio server answers.
    expect(claude.stdout).toContain('✔ Connected');
    const codex = JSON.parse(user.codex(user.home, 'get', 'loadout', '--json').stdout) as {
      transport: { type: string; command: string; args: string[]; env: Record<string, string> };
    };
    expect(codex.transport).toMatchObject({ type: 'stdio', command: process.execPath, env: { LOADOUT_HOME: user.workspace } });

    // With `loadout` on PATH the entry calls it by name; a plain apply keeps the bridge as it is.
    const bin = path.join(user.base, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'loadout'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(user.loadout(['apply', ...both], { PATH: `${bin}:/usr/bin:/bin` }).status).toBe(0);
    expect(JSON.parse(user.codex(user.home, 'get', 'loadout', '--json').stdout)).toMatchObject({
      transport: { command: 'loadout', args: ['mcp'] },
    });
    expect(user.claude(user.home, 'get', 'loadout').stdout).toContain('Command: loadout');

    expect(user.loadout(['apply', ...both, '--no-mcp-bridge']).status).toBe(0);
    expect(user.claude(user.home, 'get', 'loadout').status).toBe(1);
    expect(user.codex(user.home, 'get', 'loadout', '--json').status).not.toBe(0);
    expect(codexNames(user)).not.toContain('loadout');
  });
});
