import path from 'node:path';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeWorkspaces, session, type Workspace, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const agent = (name: string) => `---\nname: ${name}\ndescription: The ${name} agent\ntools: Read, Grep\n---\nYou are ${name}.\n`;
const command = (description: string) => `---\ndescription: ${description}\n---\nDo it with $ARGUMENTS.\n`;
const hooksFile = (event: string, command: string) => JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: 'command', command }] }] } });

async function installed(ws: Workspace, repo: string) {
  const entry = await ws.manager.install(repo);
  const s = await session(ws);
  const mine = <T extends { plugin: string | null }>(records: T[]): T[] => records.filter((record) => record.plugin === entry.name);
  return {
    agents: mine(s.agents).map((record) => record.id),
    commands: mine(s.commands).map((record) => record.id),
    hooks: mine(s.hooks).map((record) => [record.id, record.event, record.command]),
    diagnostics: s.diagnostics.filter((d) => d.message.includes(`plugin ${entry.name}`)),
  };
}

describe('agents, commands and hooks of vendor plugins', () => {
  it('reads a Claude Code plugin’s agents/, commands/ and hooks/hooks.json, plus every path its manifest adds', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'claude-kit'), {
      '.claude-plugin': {
        'plugin.json': JSON.stringify({
          name: 'claude-kit',
          agents: ['./extra/auditor.md', './agents'],
          commands: './more-commands/',
          hooks: [
            './config/extra-hooks.json',
            './hooks/hooks.json',
            { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo inline' }] }] } },
            '../outside.json',
          ],
        }),
      },
      agents: { 'reviewer.md': agent('reviewer'), 'planner.md': agent('planner') },
      extra: { 'auditor.md': agent('auditor') },
      commands: { 'ship.md': command('Ship it'), 'test.md': command('Test it') },
      'more-commands': { 'deploy.md': command('Deploy it') },
      hooks: {
        'hooks.json': hooksFile('SessionStart', '${CLAUDE_PLUGIN_ROOT}/hooks/start.sh'),
        'start.sh': '#!/bin/sh\ntouch marker\n',
        // Data the scripts read: not a hooks file, so never read as one.
        'settings.json': JSON.stringify({ colour: 'blue' }),
      },
      config: { 'extra-hooks.json': hooksFile('PreToolUse', 'echo pre') },
    });
    const result = await installed(ws, repo);
    expect(result.agents).toEqual(['auditor', 'planner', 'reviewer']);
    expect(result.commands).toEqual(['deploy', 'ship', 'test']);
    expect(result.hooks).toEqual([
      ['extra-hooks-pre-tool-use', 'PreToolUse', 'echo pre'],
      ['hooks-session-start', 'SessionStart', '${CLAUDE_PLUGIN_ROOT}/hooks/start.sh'],
      ['manifest-stop', 'Stop', 'echo inline'],
    ]);
    // Loadout reads more than Claude Code takes: Claude Code refuses an `agents` entry naming a folder.
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PLUGIN_MANIFEST_CLAUDE_REFUSES', 'PLUGIN_COMPONENTS_INVALID']);
    expect(result.diagnostics[1]?.message).toBe(
      'plugin claude-kit: hooks path "../outside.json" must start with ./ and stay inside the plugin; it is ignored',
    );
  });

  it('reads a Cursor plugin’s hooks in Cursor’s shape, and a plugin in Loadout’s own layout reads every hooks/*.json', async () => {
    const ws = workspace();
    const cursor = await installed(
      ws,
      gitRepo(path.join(ws.work, 'cursor-kit'), {
        '.cursor-plugin': { 'plugin.json': JSON.stringify({ name: 'cursor-kit' }) },
        hooks: { 'hooks.json': JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: './hooks/format.sh' }] } }) },
        commands: { 'fmt.md': command('Format') },
      }),
    );
    expect(cursor.hooks).toEqual([['hooks-after-file-edit', 'afterFileEdit', './hooks/format.sh']]);
    expect(cursor.commands).toEqual(['fmt']);

    const own = await installed(
      ws,
      gitRepo(path.join(ws.work, 'own-kit'), {
        hooks: { 'a.json': hooksFile('Stop', 'echo a'), 'b.json': hooksFile('Stop', 'echo b') },
        agents: { 'helper.md': agent('helper') },
      }),
    );
    expect(own.hooks).toEqual([
      ['a-stop', 'Stop', 'echo a'],
      ['b-stop', 'Stop', 'echo b'],
    ]);
    expect(own.agents).toEqual(['helper']);
  });

  it('a disabled plugin’s agents, commands and hooks leave the session', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'gone-kit'), {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'gone-kit' }) },
      agents: { 'a.md': agent('a') },
      commands: { 'c.md': command('C') },
      hooks: { 'hooks.json': hooksFile('SessionStart', 'echo start') },
    });
    await ws.manager.install(repo);
    await ws.manager.disable('gone-kit');
    const s = await session(ws);
    expect([s.agents, s.commands, s.hooks]).toEqual([[], [], []]);
  });
});
