import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { closeKernel } from '@loadout/kernel';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { type RunningServer, startServer } from '@loadout/server';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestContainer, placesIn, sendRequest, TOKEN } from '../server/support.js';

// Issue 31 through the built command line and the HTTP server: a plugin shaped like the in-repo
// plugins of claude-plugins-official (two subagents, two commands, a SessionStart hook, an MCP
// server) installed with Loadout lists all of them; its hook is held until the plugin is approved,
// `audit` names the command it would run, and nothing Loadout does runs it.

const opened: { server: RunningServer; container: DependencyContainer }[] = [];
afterEach(async () => {
  for (const { server, container } of opened.splice(0)) {
    await server.close();
    closeKernel(container);
    await container.dispose();
  }
  removeTestdirs();
});

interface Listed {
  id: string;
  plugin: string | null;
  held?: { decidedBy: string };
}
interface SessionJson {
  agents: (Listed & { tools: string[]; model: string | null })[];
  commands: (Listed & { argumentHint: string | null })[];
  hooks: (Listed & { event: string; matcher: string | null; command: string })[];
  servers: Listed[];
  diagnostics: { code: string; message: string }[];
}

/** A workspace, and a Claude Code plugin in git whose SessionStart hook would write a marker file. */
function fixture() {
  const work = testdir();
  const home = path.join(work, 'home');
  gitRepo(path.join(home, 'capabilities'), { 'README.md': 'my capabilities\n' });
  const marker = path.join(work, 'hook-ran');
  const agent = (name: string, description: string) =>
    `---\nname: ${name}\ndescription: ${description}\ntools: Read, Grep, Glob\nmodel: sonnet\n---\nYou are the ${name}.\n`;
  const command = (description: string) => `---\ndescription: ${description}\nargument-hint: "[target]"\n---\nDo it to $ARGUMENTS.\n`;
  const plugin = gitRepo(path.join(work, 'review-kit'), {
    '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'review-kit', description: 'Code review helpers', version: '1.0.0' }) },
    agents: { 'code-reviewer.md': agent('code-reviewer', 'Reviews a change'), 'test-writer.md': agent('test-writer', 'Writes tests') },
    commands: { 'review.md': command('Review the working tree'), 'ship.md': command('Prepare a release') },
    hooks: {
      'hooks.json': JSON.stringify({
        description: 'Greets the session',
        hooks: {
          SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh' }] }],
        },
      }),
      'session-start.sh': `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`,
    },
    '.mcp.json': JSON.stringify({ mcpServers: { notes: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] } } }),
    'server.mjs': 'console.log("server")\n',
  });
  fs.chmodSync(path.join(plugin, 'hooks', 'session-start.sh'), 0o755);
  return { home, plugin, marker, loadout: (...args: string[]) => runCli(home, args) };
}

async function serve(home: string) {
  const container = createTestContainer(placesIn(home));
  const server = await startServer(container, { port: 0, token: TOKEN, log: () => undefined });
  opened.push({ server, container });
  return (method: string, url: string) => sendRequest(server.port, method, url);
}

describe('agents, commands and hooks of an installed plugin', () => {
  it('are listed by the CLI and HTTP session; the hook is held until the plugin is approved and audit names its command', async () => {
    const { home, plugin, marker, loadout } = fixture();
    const installed = loadout('plugins', 'install', pathToFileURL(plugin).href);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('hook/hooks-session-start: SessionStart [startup]: ${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh');

    const session = loadout('session', '--json').json<SessionJson>();
    expect(session.agents.map((agent) => [agent.id, agent.plugin, agent.tools, agent.model])).toEqual([
      ['code-reviewer', 'review-kit', ['Read', 'Grep', 'Glob'], 'sonnet'],
      ['test-writer', 'review-kit', ['Read', 'Grep', 'Glob'], 'sonnet'],
    ]);
    expect(session.commands.map((command) => [command.id, command.argumentHint, command.held])).toEqual([
      ['review', '[target]', undefined],
      ['ship', '[target]', undefined],
    ]);
    expect(session.hooks).toEqual([
      expect.objectContaining({
        id: 'hooks-session-start',
        plugin: 'review-kit',
        event: 'SessionStart',
        matcher: 'startup',
        command: '${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh',
        held: expect.objectContaining({ decidedBy: 'unapproved-plugin' }),
      }),
    ]);
    expect(session.diagnostics.filter((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')).toEqual([]);
    const text = loadout('session').stdout;
    expect(text).toContain('agents (2): code-reviewer [review-kit], test-writer [review-kit]');
    expect(text).toContain('commands (2): review [review-kit], ship [review-kit]');
    expect(text).toContain('hooks (1): hooks-session-start [review-kit] (held: unapproved-plugin)');

    const audit = loadout('audit', '--json').json<{ kind: string; id: string; status: string; runs: string }[]>();
    expect(audit.filter((entry) => entry.kind === 'hook')).toEqual([
      expect.objectContaining({
        id: 'hooks-session-start',
        status: 'held',
        runs: 'SessionStart [startup]: ${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh',
      }),
    ]);
    expect(loadout('audit').stdout).toContain('SessionStart [startup]: ${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh');

    // The HTTP face: the same records, only the kinds asked for; approving there lifts the hold.
    const http = await serve(home);
    const held = await http('GET', '/api/session?kinds=agents,commands,hooks');
    expect(held.status).toBe(200);
    const heldBody = held.body as Record<string, unknown> & SessionJson;
    expect(
      Object.keys(heldBody)
        .filter((key) => Array.isArray(heldBody[key]) && key !== 'roots' && key !== 'diagnostics')
        .sort(),
    ).toEqual(['agents', 'commands', 'hooks']);
    expect(heldBody.hooks[0]?.held?.decidedBy).toBe('unapproved-plugin');
    expect((await http('POST', '/api/plugins/review-kit/approve')).status).toBe(200);
    const approved = (await http('GET', '/api/session?kinds=hooks')).body as SessionJson;
    expect(approved.hooks.map((hook) => [hook.id, hook.held])).toEqual([['hooks-session-start', undefined]]);
    expect(
      loadout('audit', '--json')
        .json<{ kind: string; status: string }[]>()
        .find((entry) => entry.kind === 'hook')?.status,
    ).toBe('approved');

    // Data never executes: listing, auditing and approving ran no hook.
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('are switched off per project like any capability, and listed with every copy by agents list and commands list', () => {
    const { home, plugin, loadout } = fixture();
    expect(loadout('plugins', 'install', pathToFileURL(plugin).href, '--yes').status).toBe(0);
    const project = path.join(home, 'work');
    fs.mkdirSync(path.join(project, '.agents', 'commands'), { recursive: true });
    fs.writeFileSync(path.join(project, '.agents', 'commands', 'review.md'), 'Review it my way.\n');

    const off = loadout('capability', 'set', 'hook/hooks-session-start', '--disable', '--project', project, '--json');
    expect(off.status, off.stderr).toBe(0);
    const inProject = loadout('session', '--project', project, '--json').json<SessionJson>();
    expect(inProject.hooks).toEqual([]);
    expect(inProject.commands.map((command) => [command.id, command.plugin])).toEqual([
      ['review', null],
      ['ship', 'review-kit'],
    ]);
    expect(
      loadout('session', '--json')
        .json<SessionJson>()
        .hooks.map((hook) => hook.id),
    ).toEqual(['hooks-session-start']);

    const listed = loadout('commands', 'list', '--project', project, '--json').json<
      { id: string; level: string; plugin: string | null; on: boolean }[]
    >();
    expect(listed.filter((entry) => entry.id === 'review').map((entry) => [entry.level, entry.plugin, entry.on])).toEqual([
      ['project', null, true],
      ['global', 'review-kit', false],
    ]);
    expect(
      loadout('agents', 'list', '--json')
        .json<{ id: string }[]>()
        .map((entry) => entry.id),
    ).toEqual(['code-reviewer', 'test-writer']);

    // why: every copy Loadout holds under a name, of any kind, and the one in the session.
    const why = loadout('why', 'review', '--project', project, '--json').json<{
      loadout: { kind: string; level: string; plugin: string | null; on: boolean; shadowed: boolean }[];
    }>();
    expect(why.loadout.map((copy) => [copy.kind, copy.level, copy.plugin, copy.on, copy.shadowed])).toEqual([
      ['command', 'project', null, true, false],
      ['command', 'global', 'review-kit', false, true],
    ]);
    const whyHook = loadout('why', 'hooks-session-start', '--project', project);
    expect(whyHook.status, whyHook.stderr).toBe(0);
    expect(whyHook.stdout).toMatch(/hook\/hooks-session-start\s+global\s+plugin review-kit\s+off/);
  });
});
