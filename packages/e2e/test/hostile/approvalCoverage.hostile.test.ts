import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_ENTRY, runCli } from '@loadout/cli/testing';
import { gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serve, stopServers } from './coreSupport.js';

// Issue 37, what an approval covers: everything a runnable capability executes or imports, for
// every plugin format, and approvals bound to what was reviewed. Each test is named after the
// audit's finding and runs its recipe through the built `loadout`.

beforeAll(() => {
  if (!fs.existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`pnpm build\` before the end-to-end tests`);
});
afterEach(removeTestdirs);

interface Listed {
  kind: string;
  id: string;
  status: string;
  held: { decidedBy: string } | null;
}
interface Diff {
  from: string;
  to: string;
  held: Listed[];
  diff: string;
}

/** A LOADOUT_HOME whose `capabilities/` is a git repository, and the built `loadout` run in it. */
function machine() {
  const work = testdir();
  const home = path.join(work, 'home');
  gitRepo(path.join(home, 'capabilities'), { skills: { mine: { 'SKILL.md': skillMarkdown({ name: 'mine', description: 'Mine.' }) } } });
  const loadout = (...args: string[]) => runCli(home, args);
  return { work, home, loadout };
}

/** A Claude Code marketplace whose one plugin starts `node ${CLAUDE_PLUGIN_ROOT}/server.mjs`, as claude-plugins-official's do. */
function claudeMarketplace(work: string, server: Record<string, unknown>, files: Record<string, string>) {
  return gitRepo(path.join(work, 'market'), {
    '.claude-plugin': {
      'marketplace.json': JSON.stringify({
        name: 'market',
        owner: { name: 'Someone' },
        plugins: [{ name: 'chat', source: './plugins/chat', description: 'Chat bridge' }],
      }),
    },
    plugins: {
      chat: {
        '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'chat', description: 'Chat bridge' }) },
        '.mcp.json': JSON.stringify({ mcpServers: { x: server } }),
        ...files,
      },
    },
  });
}

describe('37 H1 a plugin server script is in the approval', () => {
  it('37 H1 holds a Claude Code plugin server again when an update changes its ${CLAUDE_PLUGIN_ROOT} script, and diff names the script', () => {
    const { work, loadout } = machine();
    const market = claudeMarketplace(
      work,
      { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] },
      { 'server.mjs': "console.log('v1');\n" },
    );
    expect(loadout('marketplace', 'add', market).status).toBe(0);
    const installed = loadout('plugins', 'install', 'chat@market', '--json');
    expect(installed.status, installed.stderr).toBe(0);
    expect(loadout('plugins', 'approve', 'chat').status).toBe(0);
    expect(loadout('audit', '--json').json<Listed[]>()).toEqual([expect.objectContaining({ kind: 'server', id: 'x', status: 'approved' })]);

    gitCommit(market, { plugins: { chat: { 'server.mjs': "console.log('v2, unreviewed');\n" } } }, 'new server code');
    expect(loadout('marketplace', 'update', 'market').status).toBe(0);
    const updated = loadout('plugins', 'update', 'chat');
    expect(updated.status, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('held until approved (1): server/x');
    expect(loadout('audit', '--json').json<Listed[]>()).toEqual([
      expect.objectContaining({
        kind: 'server',
        id: 'x',
        status: 'held',
        held: expect.objectContaining({ decidedBy: 'unapproved-plugin' }),
      }),
    ]);
    const diff = loadout('plugins', 'diff', 'chat', '--json').json<Diff>();
    expect(diff.held.map((item) => `${item.kind}/${item.id}`)).toEqual(['server/x']);
    expect(diff.diff).toContain('server.mjs');
    expect(diff.diff).toContain("+console.log('v2, unreviewed');");
    // The session an agent runtime is given leaves the held server out.
    const session = loadout('session', '--json').json<{ servers: { id: string; held?: unknown }[] }>();
    expect(session.servers.filter((server) => server.held === undefined || server.held === null).map((server) => server.id)).not.toContain(
      'x',
    );
  });

  it('37 H1 fingerprints a server script named relative to its working folder, and what the script imports', () => {
    const { work, loadout } = machine();
    const market = claudeMarketplace(work, { command: 'node', args: ['dist/index.js'], cwd: '${CLAUDE_PLUGIN_ROOT}' }, {
      dist: { 'index.js': "require('./tools');\n", 'tools.js': "module.exports = 'v1';\n" },
    } as never);
    expect(loadout('marketplace', 'add', market).status).toBe(0);
    expect(loadout('plugins', 'install', 'chat@market').status).toBe(0);
    expect(loadout('plugins', 'approve', 'chat').status).toBe(0);
    gitCommit(market, { plugins: { chat: { dist: { 'tools.js': "module.exports = 'v2';\n" } } } }, 'tools');
    expect(loadout('marketplace', 'update', 'market').status).toBe(0);
    expect(loadout('plugins', 'update', 'chat').stdout).toContain('held until approved (1): server/x');
    expect(loadout('plugins', 'diff', 'chat', '--json').json<Diff>().diff).toContain("+module.exports = 'v2';");
  });
});

/** A task document running `run.mjs`, with an optional `input:` schema in YAML. */
function taskDoc(name: string, input = ''): string {
  return `---\nname: ${name}\ndescription: The ${name} task.\nimplementation: run.mjs\n${input}---\nRun it.\n`;
}

describe('37 H2 files a task imports from outside its folder are in the approval', () => {
  it('37 H2 holds a plugin task again when an update changes a shared ../../lib file it imports; diff names it; nothing new runs', () => {
    const { work, loadout } = machine();
    const upstream = gitRepo(path.join(work, 'acme'), {
      tasks: { greet: { 'TASK.md': taskDoc('greet'), 'run.mjs': "import { word } from '../../lib/word.mjs';\nconsole.log(word);\n" } },
      lib: { 'word.mjs': "export const word = 'reviewed';\n" },
    });
    expect(loadout('plugins', 'install', pathToFileURL(upstream).href, '--name', 'acme', '--yes').status).toBe(0);
    expect(loadout('tasks', 'run', 'greet').stdout).toBe('reviewed\n');

    gitCommit(upstream, { lib: { 'word.mjs': "export const word = 'unreviewed';\n" } }, 'shared code');
    const updated = loadout('plugins', 'update', 'acme');
    expect(updated.status, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('held until approved (1): task/greet');
    const refused = loadout('tasks', 'run', 'greet', '--json');
    expect(refused.json()).toMatchObject({
      error: { code: 'CAPABILITY_UNTRUSTED', message: expect.stringContaining('plugins diff acme') },
    });
    expect(refused.stdout).not.toContain('unreviewed');
    const diff = loadout('plugins', 'diff', 'acme', '--json').json<Diff>();
    expect(diff.diff).toContain('lib/word.mjs');
    expect(diff.diff).toContain("+export const word = 'unreviewed';");
  });
});

describe('37 M3 input-schema patterns', () => {
  it('37 M3 a catastrophic pattern does not stall loadout serve: the MCP call is answered at once', async () => {
    const { home } = machine();
    fs.mkdirSync(path.join(home, 'capabilities', 'tasks', 'match'), { recursive: true });
    fs.writeFileSync(
      path.join(home, 'capabilities', 'tasks', 'match', 'TASK.md'),
      taskDoc('match', "input:\n  type: object\n  properties:\n    word:\n      type: string\n      pattern: '^(a+)+$'\n"),
    );
    fs.writeFileSync(path.join(home, 'capabilities', 'tasks', 'match', 'run.mjs'), 'console.log("ran");\n');
    const served = await serve(home);
    const client = new Client({ name: 'hostile-37', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${served.port}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${served.token}` } },
        }),
      );
      const started = Date.now();
      const answer = await client
        .callTool({ name: 'match', arguments: { word: `${'a'.repeat(32)}!` } }, undefined, { timeout: 10_000 })
        .then(
          (result) => JSON.stringify(result),
          (error: Error) => error.message,
        );
      expect(Date.now() - started).toBeLessThan(3000);
      expect(answer).toContain('does not match pattern');
      expect(answer).not.toContain('ran');
      // A matching argument still runs.
      const matched = await client.callTool({ name: 'match', arguments: { word: 'aaaa' } });
      expect(JSON.stringify(matched)).toContain('ran');
    } finally {
      await client.close();
      await stopServers();
    }
  }, 30_000);

  it('37 M3 a plugin task whose input pattern changes in an update is held again', () => {
    const { work, loadout } = machine();
    const schema = (pattern: string) =>
      `input:\n  type: object\n  properties:\n    word:\n      type: string\n      pattern: '${pattern}'\n`;
    const upstream = gitRepo(path.join(work, 'acme'), {
      tasks: { match: { 'TASK.md': taskDoc('match', schema('^[a-z]+$')), 'run.mjs': 'console.log("ran");\n' } },
    });
    expect(loadout('plugins', 'install', pathToFileURL(upstream).href, '--name', 'acme', '--yes').status).toBe(0);
    gitCommit(upstream, { tasks: { match: { 'TASK.md': taskDoc('match', schema('^(a|a)*$')) } } }, 'pattern');
    expect(loadout('plugins', 'update', 'acme').stdout).toContain('held until approved (1): task/match');
  });
});

describe('37 L1 an approval is bound to what was reviewed', () => {
  it('37 L1 approve --commit refuses a plugin that moved on (or was edited) since the diff, over the CLI and HTTP, and changes nothing', async () => {
    const { work, home, loadout } = machine();
    const upstream = gitRepo(path.join(work, 'acme'), {
      tasks: { greet: { 'TASK.md': taskDoc('greet'), 'run.mjs': 'console.log("v1");\n' } },
    });
    expect(loadout('plugins', 'install', pathToFileURL(upstream).href, '--name', 'acme', '--yes').status).toBe(0);
    gitCommit(upstream, { tasks: { greet: { 'run.mjs': 'console.log("v2");\n' } } }, 'v2');
    expect(loadout('plugins', 'update', 'acme').status).toBe(0);
    const reviewed = loadout('plugins', 'diff', 'acme', '--json').json<Diff>();
    expect(loadout('plugins', 'diff', 'acme').stdout).toContain(`loadout plugins approve acme --commit ${reviewed.to}`);

    // An update lands between the review and the approval.
    gitCommit(upstream, { tasks: { greet: { 'run.mjs': 'console.log("v3, never reviewed");\n' } } }, 'v3');
    expect(loadout('plugins', 'update', 'acme').status).toBe(0);
    const refused = loadout('plugins', 'approve', 'acme', '--commit', reviewed.to, '--json');
    expect(refused.status).toBe(1);
    expect(refused.json()).toMatchObject({
      error: { code: 'PLUGIN_APPROVAL_STALE', message: expect.stringContaining('plugins diff acme') },
    });
    expect(loadout('tasks', 'run', 'greet', '--json').json()).toMatchObject({ error: { code: 'CAPABILITY_UNTRUSTED' } });

    const served = await serve(home);
    try {
      const approve = (body: unknown) =>
        fetch(`http://127.0.0.1:${served.port}/api/plugins/acme/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as unknown }));
      expect(await approve({ commit: reviewed.to })).toMatchObject({ status: 409, body: { error: { code: 'PLUGIN_APPROVAL_STALE' } } });
      expect(await approve({ commit: 42 })).toMatchObject({ status: 400 });
      expect(loadout('tasks', 'run', 'greet', '--json').json()).toMatchObject({ error: { code: 'CAPABILITY_UNTRUSTED' } });

      // A hand edit in the clone after the review is not what the commit holds either.
      const now = loadout('plugins', 'diff', 'acme', '--json').json<Diff>();
      const clone = path.join(home, 'plugins', 'acme');
      fs.writeFileSync(path.join(clone, 'tasks', 'greet', 'run.mjs'), 'console.log("edited in place");\n');
      expect(await approve({ commit: now.to })).toMatchObject({ status: 409, body: { error: { code: 'PLUGIN_APPROVAL_STALE' } } });
      fs.writeFileSync(path.join(clone, 'tasks', 'greet', 'run.mjs'), 'console.log("v3, never reviewed");\n');
      expect(await approve({ commit: now.to })).toMatchObject({ status: 200, body: { commit: now.to } });
    } finally {
      await stopServers();
    }
    expect(loadout('tasks', 'run', 'greet').stdout).toBe('v3, never reviewed\n');
  }, 60_000);
});

describe('37 L9 a vendor server may not leave its plugin through ${CLAUDE_PLUGIN_ROOT}/..', () => {
  it('37 L9 skips a Claude Code server whose command, cwd or argument climbs out of the plugin, as the Agent Plugins reader does', () => {
    const { work, loadout } = machine();
    const market = gitRepo(path.join(work, 'market'), {
      '.claude-plugin': {
        'marketplace.json': JSON.stringify({
          name: 'market',
          owner: { name: 'Someone' },
          plugins: [{ name: 'chat', source: './plugins/chat' }],
        }),
      },
      plugins: {
        chat: {
          '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'chat' }) },
          '.mcp.json': JSON.stringify({
            mcpServers: {
              climbs: { command: '${CLAUDE_PLUGIN_ROOT}/../../../../bin/sh', args: ['-c', 'id'] },
              wanders: { command: 'node', args: ['server.mjs'], cwd: '${CLAUDE_PLUGIN_ROOT}/../../..' },
              borrows: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/../../other/server.mjs'] },
              stays: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] },
            },
          }),
          'server.mjs': '\n',
        },
      },
    });
    expect(loadout('marketplace', 'add', market).status).toBe(0);
    expect(loadout('plugins', 'install', 'chat@market').status).toBe(0);
    const session = loadout('session', '--json');
    const doc = session.json<{ servers: { id: string }[]; diagnostics: { code: string; message: string }[] }>();
    expect(doc.servers.map((server) => server.id)).toEqual(['stays']);
    const skipped = doc.diagnostics
      .filter((diagnostic) => diagnostic.code === 'PLUGIN_SERVER_SKIPPED')
      .map((diagnostic) => diagnostic.message);
    expect(skipped).toEqual([
      expect.stringMatching(/"climbs" in .mcp.json is skipped: "command" .* leads outside the plugin/),
      expect.stringMatching(/"wanders" in .mcp.json is skipped: "cwd" .* leads outside the plugin/),
      expect.stringMatching(/"borrows" in .mcp.json is skipped: "args" .* leads outside the plugin/),
    ]);
  });
});
