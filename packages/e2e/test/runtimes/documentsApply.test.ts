import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeStart, codexHooks, REAL_CLIENTS_MS } from './realClients.js';

// Issue 31, applied: a plugin shaped like claude-plugins-official's in-repo plugins (two subagents,
// two commands, a SessionStart hook, an MCP server) installed with Loadout reaches the real Claude
// Code as the same plugin installed natively does, its hook runs at the start of a session once
// approved, and a disabled plugin leaves nothing behind: no entry, no run, the user's settings byte
// for byte. The real Codex lists the hooks Loadout writes for it, and no more once they are off.

afterEach(() => removeTestdirs());

/** The user's own Claude Code settings, as they wrote them: a hook of theirs among other keys. */
const USER_SETTINGS = `{
  "theme": "dark",
  "permissions": { "allow": ["Bash(git status)"] },
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "true" }] }]
  }
}
`;

interface ApplyJson {
  ok: boolean;
  runtimes: { runtime: string; changes: { kind: string; action: string; name: string; code?: string; reason: string }[] }[];
}

function fixture() {
  const base = testdir({});
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'workspace');
  const project = gitRepo(path.join(home, 'work', 'app'), { 'README.md': 'app\n' });
  gitRepo(path.join(workspace, 'capabilities'), { 'README.md': 'mine\n' });
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), USER_SETTINGS);
  const marker = path.join(base, 'session-started');
  const agent = (name: string, description: string) =>
    `---\nname: ${name}\ndescription: ${description}\ntools: Read, Grep\n---\nYou are the ${name}.\n`;
  const command = (description: string) => `---\ndescription: ${description}\nargument-hint: "[target]"\n---\nDo it to $ARGUMENTS.\n`;
  const plugin = gitRepo(path.join(base, 'sources', 'review-kit'), {
    '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'review-kit', description: 'Code review helpers', version: '1.0.0' }) },
    agents: { 'code-reviewer.md': agent('code-reviewer', 'Reviews a change'), 'test-writer.md': agent('test-writer', 'Writes tests') },
    commands: {
      'review.md': command('Review the working tree'),
      'ship.md': command('Prepare a release'),
      // Grants tools: held like a skill with a grant until the plugin is approved (docs/decisions/runtimes.md).
      'commit.md': '---\ndescription: Commit the staged work\nallowed-tools: Bash(git add:*), Bash(git commit:*)\n---\nCommit it.\n',
    },
    hooks: {
      'hooks.json': JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"' }] }] },
      }),
      'session-start.sh': `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`,
    },
    '.mcp.json': JSON.stringify({ mcpServers: { notes: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.mjs'] } } }),
    'server.mjs': 'process.stdin.resume();\n',
  });
  const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home });
  const apply = (...runtimes: string[]) => {
    const run = loadout('apply', '--project', project, ...runtimes.flatMap((runtime) => ['--runtime', runtime]), '--json');
    expect(run.status, run.stderr).toBe(0);
    return run.json<ApplyJson>();
  };
  return { base, home, project, plugin, marker, loadout, apply };
}

const settingsText = (home: string) => fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8');

describe("a plugin's agents, commands and hooks in the real Claude Code", () => {
  it(
    'held until approved, then listed as the native plugin is and its SessionStart hook runs; disabled, nothing of it is left',
    async () => {
      const { base, home, project, plugin, marker, loadout, apply } = fixture();
      expect(loadout('plugins', 'install', pathToFileURL(plugin).href).status).toBe(0);

      // Unapproved: audit names what the hook would run, and a session start runs nothing.
      // Asserted as the client and its settings show it, whether Loadout copies the plugin's
      // documents or the client loads the plugin in place.
      apply('claude-code');
      expect(settingsText(home)).not.toContain('session-start.sh');
      const audit = loadout('audit', '--json').json<{ kind: string; id: string; status: string; runs: string }[]>();
      expect(audit.filter((entry) => entry.kind === 'hook')).toEqual([
        expect.objectContaining({
          id: 'hooks-session-start',
          status: 'held',
          runs: 'SessionStart: sh "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"',
        }),
      ]);
      expect(audit.filter((entry) => entry.kind === 'command')).toEqual([
        expect.objectContaining({ id: 'commit', status: 'held', runs: 'grants tools Bash(git add:*), Bash(git commit:*)' }),
      ]);
      const unapproved = await claudeStart(home, project);
      expect(fs.existsSync(marker)).toBe(false);
      expect(unapproved.commands).not.toContain('review-kit:commit');

      // Approved and applied: what the client lists is what it lists for the plugin installed natively.
      expect(loadout('plugins', 'approve', 'review-kit').status).toBe(0);
      apply('claude-code');
      const started = await claudeStart(home, project);
      expect(fs.existsSync(marker)).toBe(true);
      const nativeHome = path.join(base, 'native-home');
      fs.mkdirSync(path.join(nativeHome, 'work'), { recursive: true });
      const native = await claudeStart(nativeHome, path.join(nativeHome, 'work'), '2.1.197', ['--plugin-dir', plugin]);
      const fromPlugin = (names: readonly string[]) => names.filter((name) => name.startsWith('review-kit:')).sort();
      expect(fromPlugin(native.commands)).toEqual(['review-kit:commit', 'review-kit:review', 'review-kit:ship']);
      expect(fromPlugin(native.agents)).toEqual(['review-kit:code-reviewer', 'review-kit:test-writer']);
      expect(fromPlugin(started.commands)).toEqual(fromPlugin(native.commands));
      expect(fromPlugin(started.agents)).toEqual(fromPlugin(native.agents));
      // The user's own hook and settings are still there beside Loadout's entry.
      const settings = JSON.parse(settingsText(home)) as { theme: string; hooks: Record<string, unknown[]> };
      expect(settings.theme).toBe('dark');
      expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'true' }] }]);
      expect(apply('claude-code').runtimes[0]?.changes.filter((change) => change.action !== 'skip' && change.kind === 'hook')).toEqual([]);

      // Disabled: the next apply takes every entry out, the client lists none of it and runs nothing.
      fs.rmSync(marker);
      expect(loadout('plugins', 'disable', 'review-kit').status).toBe(0);
      apply('claude-code');
      expect(settingsText(home)).toBe(USER_SETTINGS);
      const after = await claudeStart(home, project);
      expect(fs.existsSync(marker)).toBe(false);
      expect(fromPlugin(after.commands)).toEqual([]);
      expect(fromPlugin(after.agents)).toEqual([]);
    },
    REAL_CLIENTS_MS * 2,
  );
});

describe('hooks in the real Codex', () => {
  it(
    'lists the hook Loadout writes into $CODEX_HOME/hooks.json and none once it is off; commands are skipped with the reason',
    async () => {
      const { home, project, plugin, loadout, apply } = fixture();
      expect(loadout('plugins', 'install', pathToFileURL(plugin).href, '--yes').status).toBe(0);
      const applied = apply('codex');
      const changes = applied.runtimes[0]?.changes ?? [];
      expect(changes).toContainEqual(expect.objectContaining({ kind: 'hook', action: 'create', name: 'hooks-session-start' }));
      // Approved with --yes: all three commands are on, and Codex 0.171 reads none of them.
      const skipped = changes.filter((change) => change.kind === 'command');
      expect(skipped.map((change) => change.name).sort()).toEqual(['commit', 'review', 'ship']);
      for (const change of skipped) {
        expect(change).toEqual(
          expect.objectContaining({
            action: 'skip',
            code: 'DOCUMENT_PLACE_UNCONFIRMED',
            reason: expect.stringMatching(/no custom prompts/),
          }),
        );
      }
      const listed = await codexHooks(home, project);
      expect(listed.problems).toEqual([]);
      const ours = listed.hooks.filter((hook) => hook.sourcePath === path.join(home, '.codex', 'hooks.json'));
      expect(ours).toEqual([
        expect.objectContaining({
          eventName: 'sessionStart',
          source: 'user',
          // The plugin's folder written out: Codex sets no CLAUDE_PLUGIN_ROOT for a hook of its own settings.
          command: expect.stringMatching(/^sh "\/.*\/plugins\/review-kit\/hooks\/session-start\.sh"$/),
        }),
      ]);
      expect(loadout('plugins', 'disable', 'review-kit').status).toBe(0);
      apply('codex');
      expect((await codexHooks(home, project)).hooks.filter((hook) => hook.sourcePath.startsWith(home))).toEqual([]);
    },
    REAL_CLIENTS_MS,
  );
});
