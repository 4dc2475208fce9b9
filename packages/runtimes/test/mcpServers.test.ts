import fs from 'node:fs';
import path from 'node:path';
import { CapabilityHolds, contribute, resolve } from '@loadout/kernel';
import { acquireFileLock } from '@loadout/files';
import { removeTestdirs } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { CapabilityStateService } from '@loadout/state';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApplyResult, type BridgeRequest, RuntimeApplier } from '../src/index.js';
import { TRASH_FOLDER } from '../src/RuntimeTrash.js';
import { MCP_MANIFEST_FILE } from '../src/mcp/McpManifest.js';
import {
  closeLoadouts,
  installPlugin,
  machine,
  type Machine,
  openLoadout,
  serverDocument,
  snapshot,
} from '../src/testing/runtimeFixture.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

/** Claude Code's global configuration as Claude Code itself leaves it, with a server of the user's. */
const CLAUDE_JSON = `${JSON.stringify(
  {
    numStartups: 4,
    userID: 'e3b0c44298fc1c149afbf4c8996fb924',
    mcpServers: { mine: { type: 'stdio', command: 'node', args: ['/opt/mine.js'], env: {} } },
    projects: { '/somewhere/else': { allowedTools: [], hasTrustDialogAccepted: true } },
  },
  null,
  2,
)}`;

/** A Codex configuration written by hand: comments, odd spacing, CRLF line endings, a server of the user's. */
const CODEX_TOML = [
  '# my codex settings',
  'model = "gpt-5"   # trailing comment',
  "approval_policy='never'",
  '',
  '[mcp_servers.mine]',
  "command = 'node'",
  'args = [ "/opt/mine.js",   "--x" ]   # odd spacing',
  '',
  '[tui]',
  'notifications = true',
  '',
].join('\r\n');

const files = (m: Machine) => ({
  claudeUser: path.join(m.home, '.claude', '.claude.json'),
  claudeProject: path.join(m.project, '.mcp.json'),
  codexUser: path.join(m.home, '.codex', 'config.toml'),
  codexProject: path.join(m.project, '.codex', 'config.toml'),
});

function claudeServers(file: string): Record<string, unknown> {
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers?: Record<string, unknown> }).mcpServers ?? {};
}

function codexServers(file: string): Record<string, unknown> {
  return (parseToml(fs.readFileSync(file, 'utf8')) as { mcp_servers?: Record<string, unknown> }).mcp_servers ?? {};
}

/** The owner's `fs` (stdio) and `remote` (Streamable HTTP, a bearer token by reference), a project's `proj`, and the user's own files. */
function fixture(): Machine {
  const m = machine({
    capabilities: {
      servers: {
        'fs.json': serverDocument({ command: 'node', args: ['/opt/fs-server.js', '/tmp'], env: { LOG_LEVEL: 'debug' } }),
        'remote.json': serverDocument({ url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${EXAMPLE_TOKEN}' } }),
      },
    },
    project: { servers: { 'proj.json': serverDocument({ command: 'node', args: ['tools/server.js'] }) } },
    home: { '.claude': { '.claude.json': CLAUDE_JSON }, '.codex': { 'config.toml': CODEX_TOML } },
  });
  return m;
}

function part(result: ApplyResult, runtime: string): ApplyResult['runtimes'][number] {
  const found = result.runtimes.find((candidate) => candidate.runtime === runtime);
  if (found === undefined) throw new Error(`no ${runtime} in the plan`);
  return found;
}

const bothRuntimes = ['claude-code', 'codex'];

describe('apply writes MCP servers', () => {
  it("writes global servers into the user's files and project servers into the project's, and taking them away leaves every other byte", async () => {
    const m = fixture();
    const f = files(m);
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ project: m.project, runtimes: bothRuntimes });
    expect(result.ok).toBe(true);
    expect(part(result, 'claude-code').mcp?.status).toBe('ok');

    expect(claudeServers(f.claudeUser)).toEqual({
      mine: { type: 'stdio', command: 'node', args: ['/opt/mine.js'], env: {} },
      fs: { type: 'stdio', command: 'node', args: ['/opt/fs-server.js', '/tmp'], env: { LOG_LEVEL: 'debug' } },
      remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${EXAMPLE_TOKEN}' } },
    });
    expect(claudeServers(f.claudeProject)).toEqual({ proj: { type: 'stdio', command: 'node', args: ['tools/server.js'], env: {} } });
    expect(codexServers(f.codexUser)).toEqual({
      mine: { command: 'node', args: ['/opt/mine.js', '--x'] },
      fs: { command: 'node', args: ['/opt/fs-server.js', '/tmp'], env: { LOG_LEVEL: 'debug' } },
      remote: { url: 'https://mcp.example.com/mcp', bearer_token_env_var: 'EXAMPLE_TOKEN' },
    });
    expect(codexServers(f.codexProject)).toEqual({ proj: { command: 'node', args: ['tools/server.js'] } });
    // Codex's file keeps its CRLF line endings; both user files stay private.
    expect(fs.readFileSync(f.codexUser, 'utf8')).not.toMatch(/[^\r]\n/);
    expect(fs.statSync(f.codexProject).mode & 0o777).toBe(0o644);
    const findings = result.runtimes.flatMap((runtime) => runtime.findings.map((finding) => finding.code));
    expect(findings).toContain('CODEX_PROJECT_NOT_TRUSTED');
    expect(findings).toContain('CLAUDE_PROJECT_SERVERS_NEED_APPROVAL');

    const manifest = JSON.parse(fs.readFileSync(path.join(m.places.dataDir, MCP_MANIFEST_FILE), 'utf8')) as {
      entries: { runtime: string; name: string; file: string }[];
    };
    expect(manifest.entries.map((entry) => `${entry.runtime}:${path.relative(m.base, entry.file)}:${entry.name}`).sort()).toEqual([
      'claude-code:home/.claude/.claude.json:fs',
      'claude-code:home/.claude/.claude.json:remote',
      'claude-code:home/work/repo/packages/app/.mcp.json:proj',
      'codex:home/.codex/config.toml:fs',
      'codex:home/.codex/config.toml:remote',
      'codex:home/work/repo/packages/app/.codex/config.toml:proj',
    ]);
    expect((await applier.apply({ project: m.project, runtimes: bothRuntimes, mode: 'check' })).upToDate).toBe(true);

    fs.rmSync(path.join(m.places.capabilitiesDir, 'servers'), { recursive: true });
    fs.rmSync(path.join(m.project, '.agents', 'servers'), { recursive: true });
    const emptied = await applier.apply({ project: m.project, runtimes: bothRuntimes });
    expect(emptied.retired.map((entry) => `${entry.kind}:${entry.runtime}:${entry.name}`).sort()).toEqual([
      'server:claude-code:fs',
      'server:claude-code:proj',
      'server:claude-code:remote',
      'server:codex:fs',
      'server:codex:proj',
      'server:codex:remote',
    ]);
    expect(fs.readFileSync(f.claudeUser, 'utf8')).toBe(CLAUDE_JSON);
    expect(fs.readFileSync(f.codexUser, 'utf8')).toBe(CODEX_TOML);
    // The project files were Loadout's own: they leave with their last entry.
    expect(fs.existsSync(f.claudeProject)).toBe(false);
    expect(fs.existsSync(f.codexProject)).toBe(false);
  });

  it('keeps an identical entry of the user and reports it; a different one is a conflict that holds back only that runtime', async () => {
    const m = fixture();
    const f = files(m);
    fs.writeFileSync(f.codexUser, `${CODEX_TOML}[mcp_servers.fs]\r\ncommand = "other"\r\n`);
    const claudeWithFs = JSON.stringify({
      mcpServers: { fs: { type: 'stdio', command: 'node', args: ['/opt/fs-server.js', '/tmp'], env: { LOG_LEVEL: 'debug' } } },
    });
    fs.writeFileSync(f.claudeUser, claudeWithFs);
    const codexBefore = fs.readFileSync(f.codexUser, 'utf8');
    const applier = resolve(openLoadout(m), RuntimeApplier);

    const result = await applier.apply({ project: m.project, runtimes: bothRuntimes });
    expect(result.ok).toBe(false);
    expect(part(result, 'codex').mcp?.status).toBe('conflict');
    expect(part(result, 'codex').findings.find((finding) => finding.code === 'SERVER_CONFLICT')?.message).toContain(
      "holds a different entry of that name that is not Loadout's",
    );
    expect(fs.readFileSync(f.codexUser, 'utf8')).toBe(codexBefore);
    expect(fs.existsSync(f.codexProject)).toBe(false);

    const claude = part(result, 'claude-code');
    expect(claude.mcp?.status).toBe('ok');
    expect(claude.findings.map((finding) => finding.code)).toContain('IDENTICAL_UNMANAGED_KEPT');
    expect(claude.mcp?.sees.find((entry) => entry.name === 'fs')?.owner).toBe('user');
    expect(Object.keys(claudeServers(f.claudeUser)).sort()).toEqual(['fs', 'remote']);
  });

  it('never overwrites an entry the user edited, and lets it go when it is no longer wanted', async () => {
    const m = fixture();
    const f = files(m);
    const applier = resolve(openLoadout(m), RuntimeApplier);
    await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    const edited = fs.readFileSync(f.claudeUser, 'utf8').replace('"LOG_LEVEL": "debug"', '"LOG_LEVEL": "trace"');
    fs.writeFileSync(f.claudeUser, edited);
    fs.writeFileSync(
      path.join(m.places.capabilitiesDir, 'servers', 'fs.json'),
      serverDocument({ command: 'node', args: ['/opt/fs-server-2.js'] }),
    );

    const changed = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(part(changed, 'claude-code').mcp?.status).toBe('conflict');
    expect(fs.readFileSync(f.claudeUser, 'utf8')).toBe(edited);

    fs.rmSync(path.join(m.places.capabilitiesDir, 'servers', 'fs.json'));
    const released = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(released.ok).toBe(true);
    expect(part(released, 'claude-code').changes.find((change) => change.name === 'fs')?.action).toBe('release');
    expect(claudeServers(f.claudeUser).fs).toMatchObject({ env: { LOG_LEVEL: 'trace' } });
    expect((await applier.apply({ project: m.project, runtimes: ['claude-code'], mode: 'check' })).upToDate).toBe(true);
  });

  it("retires a disabled plugin's server into the trash, puts it back on restore, and expands the plugin's root", async () => {
    const m = fixture();
    const f = files(m);
    const container = openLoadout(m);
    installPlugin(container, m, 'tools', {
      servers: {
        'lint.json': serverDocument({
          command: 'node',
          args: ['${PLUGIN_ROOT}/bin/lint.js'],
          env: { DATA: '${CLAUDE_PLUGIN_ROOT}/data', HOME_DIR: '${HOME}' },
        }),
      },
    });
    const root = fs.realpathSync(path.join(m.places.pluginsDir, 'tools'));
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ project: m.project, runtimes: bothRuntimes });
    expect(claudeServers(f.claudeUser).lint).toEqual({
      type: 'stdio',
      command: 'node',
      args: [`${root}/bin/lint.js`],
      env: { DATA: `${root}/data`, HOME_DIR: '${HOME}' },
    });
    const withLint = fs.readFileSync(f.claudeUser, 'utf8');

    resolve(container, PluginRegistry).setEnabled('tools', false);
    const disabled = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    const retired = disabled.retired.find((entry) => entry.name === 'lint');
    expect(retired).toMatchObject({ kind: 'server', runtime: 'claude-code', path: '$CLAUDE_CONFIG_DIR/.claude.json' });
    expect(claudeServers(f.claudeUser).lint).toBeUndefined();
    expect(fs.readdirSync(path.join(m.places.dataDir, TRASH_FOLDER))).toHaveLength(1);

    await applier.restore(retired?.id as string);
    expect(claudeServers(f.claudeUser)).toEqual(JSON.parse(withLint).mcpServers);
    expect(applier.listRetired().retired).toEqual([]);
    await expect(applier.restore(retired?.id as string)).rejects.toMatchObject({ code: 'TRASH_ENTRY_NOT_FOUND' });
    // Still disabled: the next apply retires it again.
    const again = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(again.retired.map((entry) => entry.name)).toEqual(['lint']);
  });

  it('37 L10 refuses to restore a server the session holders hold now, its plugin disabled or not; the file and the trash stay as they are', async () => {
    const m = fixture();
    const f = files(m);
    const container = openLoadout(m);
    installPlugin(container, m, 'tools', {
      servers: { 'lint.json': serverDocument({ command: 'node', args: ['${PLUGIN_ROOT}/bin/lint.js'] }) },
    });
    const applier = resolve(container, RuntimeApplier);
    await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    resolve(container, PluginRegistry).setEnabled('tools', false);
    const retired = (await applier.apply({ project: m.project, runtimes: ['claude-code'] })).retired.find((entry) => entry.name === 'lint');
    // The trust package's rule in small: every server of plugin "tools" is held from now on.
    contribute(container, CapabilityHolds, {
      forSession: () => (records) =>
        new Map(
          records
            .filter((record) => record.plugin === 'tools')
            .map((record) => [record, { decidedBy: 'unapproved-plugin' as const, reason: 'tools changed' }]),
        ),
    });
    const before = fs.readFileSync(f.claudeUser, 'utf8');
    await expect(applier.restore(retired?.id as string)).rejects.toMatchObject({
      code: 'CAPABILITY_UNTRUSTED',
      message: /server\/lint is held \(unapproved-plugin\): tools changed/,
    });
    expect(fs.readFileSync(f.claudeUser, 'utf8')).toBe(before);
    expect(applier.listRetired().retired.map((entry) => entry.id)).toEqual([retired?.id]);
  });

  it('maps a name the runtimes refuse, warns about a credential written out, and never prints a value', async () => {
    const m = fixture();
    fs.writeFileSync(
      path.join(m.places.capabilitiesDir, 'servers', 'docs.search.json'),
      serverDocument({ url: 'https://docs.example.com/mcp', headers: { 'X-Api-Key': 'live-4f9a8c7e2b1d3a6f' } }),
    );
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ project: m.project, runtimes: bothRuntimes, mode: 'dry-run' });
    const claude = part(result, 'claude-code');
    const mapped = claude.changes.find((change) => change.id === 'docs.search');
    expect(mapped?.name).toMatch(/^docs_search-[0-9a-f]{6}$/);
    expect(part(result, 'codex').changes.find((change) => change.id === 'docs.search')?.name).toBe(mapped?.name);
    expect(result.findings.map((finding) => finding.code)).toEqual(expect.arrayContaining(['SERVER_NAME_MAPPED', 'SERVER_SECRET_LITERAL']));
    expect(result.findings.find((finding) => finding.code === 'SERVER_SECRET_LITERAL')?.message).toContain('headers.X-Api-Key');
    const printed = JSON.stringify(result);
    expect(printed).not.toContain('live-4f9a8c7e2b1d3a6f');
    expect(printed).not.toContain('LOG_LEVEL": "debug');
    expect(printed).not.toContain(m.home);
  });

  it('turns references into what Codex offers, and skips what Codex cannot hold', async () => {
    const m = machine({
      capabilities: {
        servers: {
          'passthrough.json': serverDocument({ command: 'node', args: ['s.js'], env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', MODE: 'fast' } }),
          'headers.json': serverDocument({ url: 'https://h.example.com/mcp', headers: { 'X-Team': '${TEAM_ID}', 'X-Client': 'loadout' } }),
          'renamed.json': serverDocument({ command: 'node', env: { TOKEN: '${GH_TOKEN}' } }),
          'legacy.json': serverDocument({ url: 'https://l.example.com/sse', type: 'sse' }),
          'socket.json': serverDocument({ url: 'wss://w.example.com/mcp' }),
        },
      },
    });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ runtimes: bothRuntimes });
    expect(codexServers(files(m).codexUser)).toEqual({
      passthrough: { command: 'node', args: ['s.js'], env: { MODE: 'fast' }, env_vars: ['GITHUB_TOKEN'] },
      headers: { url: 'https://h.example.com/mcp', http_headers: { 'X-Client': 'loadout' }, env_http_headers: { 'X-Team': 'TEAM_ID' } },
    });
    const skips = part(result, 'codex')
      .changes.filter((change) => change.action === 'skip')
      .map((change) => `${change.name}: ${change.reason}`);
    expect(skips).toEqual([
      expect.stringMatching(/^legacy: Codex speaks stdio and Streamable HTTP only, not HTTP\+SSE/),
      expect.stringMatching(/^renamed: Codex does not expand/),
      expect.stringMatching(/^socket: Codex speaks stdio and Streamable HTTP only, not WebSocket/),
    ]);
    expect(claudeServers(files(m).claudeUser)).toMatchObject({
      renamed: { type: 'stdio', command: 'node', args: [], env: { TOKEN: '${GH_TOKEN}' } },
      legacy: { type: 'sse', url: 'https://l.example.com/sse' },
      socket: { type: 'ws', url: 'wss://w.example.com/mcp' },
    });
  });

  it('writes nothing on --dry-run or --check, and --check reports the drift', async () => {
    const m = fixture();
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    // Open the database first: that alone makes the data folder.
    resolve(container, PluginRegistry).list();
    const tree = (): Record<string, string> =>
      Object.fromEntries<string>(Object.entries(snapshot(m.base)).filter(([file]) => !/loadout\.db/.test(file)));
    const untouched = tree();
    const dry = await applier.apply({ project: m.project, runtimes: bothRuntimes, mode: 'dry-run' });
    const check = await applier.apply({ project: m.project, runtimes: bothRuntimes, mode: 'check' });
    expect(tree()).toEqual(untouched);
    expect(dry.changeCount).toBe(6);
    expect(check.upToDate).toBe(false);
    await applier.apply({ project: m.project, runtimes: bothRuntimes });
    fs.writeFileSync(
      path.join(m.places.capabilitiesDir, 'servers', 'fs.json'),
      serverDocument({ command: 'node', args: ['/opt/fs-server-2.js'] }),
    );
    const drift = await applier.apply({ project: m.project, runtimes: bothRuntimes, mode: 'check' });
    expect(drift.upToDate).toBe(false);
    expect(
      drift.runtimes.flatMap((runtime) =>
        runtime.changes.filter((change) => change.kind === 'server').map((change) => `${runtime.runtime}:${change.action}:${change.name}`),
      ),
    ).toEqual(['claude-code:update:fs', 'codex:update:fs']);
  });

  it("waits for Claude Code's own lock on its configuration and keeps what was written under it", async () => {
    const m = fixture();
    const f = files(m);
    const lock = await acquireFileLock(f.claudeUser, { stale: 10_000 });
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const applying = applier.apply({ project: m.project, runtimes: ['claude-code'] });
    await new Promise((done) => setTimeout(done, 300));
    expect(claudeServers(f.claudeUser).fs).toBeUndefined();
    // What Claude Code writes while it holds the lock is there after Loadout's edit.
    fs.writeFileSync(f.claudeUser, CLAUDE_JSON.replace('"numStartups": 4', '"numStartups": 5'));
    await lock.release();
    const result = await applying;
    expect(result.ok).toBe(true);
    const after = JSON.parse(fs.readFileSync(f.claudeUser, 'utf8')) as { numStartups: number; mcpServers: Record<string, unknown> };
    expect(after.numStartups).toBe(5);
    expect(Object.keys(after.mcpServers).sort()).toEqual(['fs', 'mine', 'remote']);
  });
});

describe('the MCP bridge', () => {
  const bridge = (mode: BridgeRequest['mode']): BridgeRequest => ({ mode, command: 'loadout', args: ['mcp'], env: {} });

  it('registers Loadout once, keeps it on a plain apply, and removes it when asked', async () => {
    const m = machine();
    const f = files(m);
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const on = await applier.apply({ runtimes: bothRuntimes, mcpBridge: bridge('on') });
    expect(on.changeCount).toBe(2);
    expect(claudeServers(f.claudeUser).loadout).toEqual({ type: 'stdio', command: 'loadout', args: ['mcp'], env: {} });
    expect(codexServers(f.codexUser).loadout).toEqual({ command: 'loadout', args: ['mcp'] });
    expect(part(on, 'codex').mcp?.sees).toEqual([
      { name: 'loadout', id: 'loadout', path: '$CODEX_HOME/config.toml', scope: 'user', owner: 'bridge' },
    ]);

    expect((await applier.apply({ runtimes: bothRuntimes, mcpBridge: bridge('on') })).changeCount).toBe(0);
    expect((await applier.apply({ runtimes: bothRuntimes, mcpBridge: bridge('keep'), mode: 'check' })).upToDate).toBe(true);
    expect((await applier.apply({ runtimes: bothRuntimes })).changeCount).toBe(0);

    const off = await applier.apply({ runtimes: bothRuntimes, mcpBridge: bridge('off') });
    expect(off.retired.map((entry) => `${entry.runtime}:${entry.name}`).sort()).toEqual(['claude-code:loadout', 'codex:loadout']);
    expect(fs.existsSync(f.claudeUser)).toBe(false);
    expect(fs.existsSync(f.codexUser)).toBe(false);
  });

  it("never takes the user's own loadout entry", async () => {
    const m = machine({ home: { '.claude': { '.claude.json': JSON.stringify({ mcpServers: { loadout: { command: 'my-loadout' } } }) } } });
    const before = fs.readFileSync(files(m).claudeUser, 'utf8');
    const applier = resolve(openLoadout(m), RuntimeApplier);
    const result = await applier.apply({ runtimes: ['claude-code'], mcpBridge: bridge('on') });
    expect(result.ok).toBe(true);
    expect(part(result, 'claude-code').findings.map((finding) => finding.code)).toContain('MCP_BRIDGE_NAME_TAKEN');
    expect(fs.readFileSync(files(m).claudeUser, 'utf8')).toBe(before);
  });
});

describe("a server's tool lists", () => {
  it("are written into Codex's entry, and reported as info for Claude Code, which has no such setting", async () => {
    const m = machine({
      capabilities: {
        servers: {
          'files.json': serverDocument({ command: 'node', args: ['files.js'], tools: { allow: ['read_file'], deny: ['write_file'] } }),
        },
      },
      home: { '.claude': { '.claude.json': CLAUDE_JSON }, '.codex': { 'config.toml': CODEX_TOML } },
    });
    const result = await resolve(openLoadout(m), RuntimeApplier).apply({ runtimes: bothRuntimes });
    expect(result.ok).toBe(true);
    expect(codexServers(files(m).codexUser).files).toEqual({
      command: 'node',
      args: ['files.js'],
      enabled_tools: ['read_file'],
      disabled_tools: ['write_file'],
    });
    expect(claudeServers(files(m).claudeUser).files).toEqual({ type: 'stdio', command: 'node', args: ['files.js'], env: {} });
    const info = part(result, 'claude-code').findings.filter((finding) => finding.code === 'SERVER_TOOLS_UNSUPPORTED');
    expect(info.map((finding) => [finding.severity, finding.message])).toEqual([
      [
        'info',
        'claude-code: server "files": claude-code has no per-server allow or deny list of tools, so its tools.allow and tools.deny are not written there; it offers the server\'s tools as the server lists them',
      ],
    ]);
    expect(part(result, 'codex').findings.map((finding) => finding.code)).not.toContain('SERVER_TOOLS_UNSUPPORTED');
  });
});

describe('state and levels', () => {
  it("leaves the project's own entry of a switched-off server's name as it is, with a warning, and writes the runtime's other entries", async () => {
    const m = fixture();
    const f = files(m);
    const own = '# mine\n[mcp_servers.fs]\ncommand = "node"\nargs = ["my-own-fs.js"]\n';
    fs.mkdirSync(path.dirname(f.codexProject), { recursive: true });
    fs.writeFileSync(f.codexProject, own);
    const container = openLoadout(m);
    const off = await resolve(container, CapabilityStateService).setCapabilityState({ project: m.project }, [
      { kind: 'server', id: 'fs', enabled: false },
    ]);
    expect(off.errors).toEqual([]);
    const result = await resolve(container, RuntimeApplier).apply({ project: m.project, runtimes: ['codex'] });
    expect(result.ok).toBe(true);
    const taken = part(result, 'codex').findings.filter((finding) => finding.code === 'SERVER_OFF_ENTRY_TAKEN');
    expect(taken.map((finding) => finding.severity)).toEqual(['warning']);
    expect(fs.readFileSync(f.codexProject, 'utf8')).toContain(own);
    expect(codexServers(f.codexProject).proj).toBeDefined();
  });

  it("a server turned off for one project stays in the user file and is left off in the project's view of each runtime, until it is on again; a project server moved to the global level moves files", async () => {
    const m = fixture();
    const f = files(m);
    const container = openLoadout(m);
    const applier = resolve(container, RuntimeApplier);
    const runtimes = [...bothRuntimes, 'windsurf'];
    fs.mkdirSync(path.join(m.home, '.codeium', 'windsurf'), { recursive: true });
    await applier.apply({ project: m.project, runtimes });
    const claudeBefore = fs.readFileSync(f.claudeUser, 'utf8');
    const state = resolve(container, CapabilityStateService);
    const off = await state.setCapabilityState({ project: m.project }, [{ kind: 'server', id: 'fs', enabled: false }]);
    expect(off.errors).toEqual([]);

    const dry = await applier.apply({ project: m.project, runtimes, mode: 'dry-run' });
    const offChanges = dry.runtimes.flatMap((entry) => entry.changes.filter((change) => change.kind === 'server'));
    expect(offChanges.map((change) => `${change.action}:${change.name}:${change.path}`).sort()).toEqual([
      'create:fs:$CLAUDE_CONFIG_DIR/.claude.json',
      'create:fs:<project>/.codex/config.toml',
      // Windsurf has no project file for the project's own server (below).
      'skip:proj:null',
    ]);
    expect(fs.readFileSync(f.claudeUser, 'utf8')).toBe(claudeBefore);

    const result = await applier.apply({ project: m.project, runtimes });
    expect(result.ok).toBe(true);
    // The user files keep the server; each project view leaves it off, as each runtime says it.
    expect(claudeServers(f.claudeUser).fs).toBeDefined();
    expect(codexServers(f.codexUser).fs).toBeDefined();
    const claudeJson = JSON.parse(fs.readFileSync(f.claudeUser, 'utf8')) as { projects: Record<string, { disabledMcpServers?: string[] }> };
    expect(claudeJson.projects[fs.realpathSync(m.repo)]?.disabledMcpServers).toEqual(['fs']);
    expect(claudeJson.projects['/somewhere/else']).toEqual({ allowedTools: [], hasTrustDialogAccepted: true });
    expect(codexServers(f.codexProject).fs).toEqual({ enabled: false });
    // A mark is no server the runtime sees in the project.
    expect(
      part(result, 'codex')
        .mcp?.sees.filter((entry) => entry.scope === 'project')
        .map((entry) => entry.name),
    ).toEqual(['proj']);
    // Windsurf has no project file: it keeps the server, and says so by name.
    const offOnly = (run: ApplyResult) =>
      [...run.findings, ...run.runtimes.flatMap((entry) => entry.findings)].filter(
        (finding) => finding.code === 'SERVER_OFF_IN_PROJECT_ONLY',
      );
    const warned = offOnly(result);
    expect(warned.map((finding) => finding.message.split(':')[0])).toEqual(['windsurf']);
    // Nor can it hold the project's own server: skipped for it, and said, never dropped in silence.
    expect(part(result, 'windsurf').changes.filter((change) => change.kind === 'server' && change.action === 'skip')).toEqual([
      expect.objectContaining({ name: 'proj', reason: expect.stringMatching(/^windsurf has no project configuration/) }),
    ]);
    expect(
      [...result.findings, ...result.runtimes.flatMap((entry) => entry.findings)]
        .filter((finding) => finding.code === 'SERVER_NO_PROJECT_SCOPE')
        .map((finding) => finding.message),
    ).toEqual([expect.stringMatching(/^windsurf: server "proj" is skipped/)]);
    expect((await applier.apply({ project: m.project, runtimes, mode: 'check' })).upToDate).toBe(true);

    const on = await state.setCapabilityState({ project: m.project }, [{ kind: 'server', id: 'fs', enabled: true }]);
    expect(on.errors).toEqual([]);
    const back = await applier.apply({ project: m.project, runtimes });
    expect(back.retired.map((entry) => `${entry.runtime}:${entry.name}`).sort()).toEqual(['claude-code:fs', 'codex:fs']);
    expect(fs.readFileSync(f.claudeUser, 'utf8')).toBe(claudeBefore);
    expect(codexServers(f.codexProject).fs).toBeUndefined();
    expect(offOnly(back)).toEqual([]);
    // A retired mark comes back from the trash into its list, managed again; the next apply retires it once more.
    const mark = back.retired.find((entry) => entry.runtime === 'claude-code');
    await applier.restore(mark?.id as string);
    const restored = JSON.parse(fs.readFileSync(f.claudeUser, 'utf8')) as { projects: Record<string, { disabledMcpServers?: string[] }> };
    expect(restored.projects[fs.realpathSync(m.repo)]?.disabledMcpServers).toEqual(['fs']);
    expect((await applier.apply({ project: m.project, runtimes })).retired.map((entry) => entry.name)).toEqual(['fs']);
    expect(fs.readFileSync(f.claudeUser, 'utf8')).toBe(claudeBefore);

    fs.renameSync(path.join(m.project, '.agents', 'servers', 'proj.json'), path.join(m.places.capabilitiesDir, 'servers', 'proj.json'));
    const moved = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(moved.retired.map((entry) => `${entry.name}:${entry.path}`)).toEqual(['proj:<project>/.mcp.json']);
    expect(claudeServers(f.claudeUser).proj).toEqual({ type: 'stdio', command: 'node', args: ['tools/server.js'], env: {} });
  });
});
