import fs from 'node:fs';
import path from 'node:path';
import { CapabilityHolds, contribute, resolve } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import { PluginRegistry } from '@loadout/plugins';
import { CapabilityStateService } from '@loadout/state';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApplyResult, explainSkill, RuntimeApplier, RuntimePlanner } from '../src/index.js';
import { DOCUMENT_MANIFEST_FILE } from '../src/documents/DocumentManifest.js';
import { closeLoadouts, installPlugin, machine, type Machine, openLoadout, openSession } from '../src/testing/runtimeFixture.js';

afterEach(() => {
  closeLoadouts();
  removeTestdirs();
});

/** Claude Code's settings as a person keeps them: their own hook, their own keys, their spacing. */
const SETTINGS = `{
  "theme": "dark",
  "permissions": { "allow": ["Bash(git status)"] },
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]
  }
}
`;

const AGENT = '---\nname: helper\ndescription: Helps with chores.\ntools: Read, Grep\n---\nYou help.\n';
const COMMAND = '---\ndescription: Deploy the app\nargument-hint: [env]\n---\nDeploy to $ARGUMENTS.\n';
const PLUGIN_AGENT = '---\nname: reviewer\ndescription: Reviews code.\n---\nYou review.\n';
const PLUGIN_COMMAND = '---\ndescription: Ship it\n---\nShip $1 now.\n';

/** The owner's own agent, command and hooks (one event Codex has, one it has not), and a plugin shaped like Claude Code's. */
function world(): { m: Machine; container: ReturnType<typeof openLoadout>; applier: RuntimeApplier } {
  const m = machine({
    capabilities: {
      agents: { 'helper.md': AGENT },
      commands: { 'deploy.md': COMMAND },
      hooks: {
        'mine.json': JSON.stringify({
          hooks: {
            SessionStart: [{ hooks: [{ type: 'command', command: 'echo owner-start' }] }],
            Notification: [{ matcher: 'idle', hooks: [{ type: 'command', command: 'echo owner-notify' }] }],
          },
        }),
      },
    },
    home: { '.claude': { 'settings.json': SETTINGS } },
  });
  const container = openLoadout(m);
  // No `.claude-plugin/plugin.json`: Claude Code cannot read this plugin in place as its own, so
  // its documents are copied (a plugin it can read in place: the last test).
  installPlugin(container, m, 'fixp', {
    agents: { 'reviewer.md': PLUGIN_AGENT },
    commands: { 'ship.md': PLUGIN_COMMAND },
    hooks: {
      'hooks.json': JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: 'command', command: '"${CLAUDE_PLUGIN_ROOT}/hooks/start.sh" --quiet' }] }] },
      }),
      'start.sh': '#!/bin/sh\ntouch "$HOME/started"\n',
    },
  });
  return { m, container, applier: resolve(container, RuntimeApplier) };
}

const settingsOf = (m: Machine): string => fs.readFileSync(path.join(m.home, '.claude', 'settings.json'), 'utf8');
const changesOf = (result: ApplyResult, runtime: string) => result.runtimes.find((part) => part.runtime === runtime)?.changes ?? [];
/** What the plan says the runtime loads of Loadout's agents, commands and hooks: kind, name as listed, how it arrives. */
const documentsSeen = (result: ApplyResult, runtime: string) =>
  (result.runtimes.find((part) => part.runtime === runtime)?.documents?.sees ?? []).map((seen) => [seen.kind, seen.name, seen.state]);

describe('agents, commands and hooks applied into runtimes', () => {
  it('writes Claude Code its agents, commands and hooks as it names a plugin of its own, and Codex its hooks', async () => {
    const { m, applier } = world();
    const result = await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.ok).toBe(true);
    const claude = path.join(m.home, '.claude');
    expect(fs.readFileSync(path.join(claude, 'agents', 'helper.md'), 'utf8')).toBe(AGENT);
    expect(fs.readFileSync(path.join(claude, 'commands', 'deploy.md'), 'utf8')).toBe(COMMAND);
    // A plugin's command in a folder named after it (`/fixp:ship`), its agent renamed `fixp:reviewer`.
    expect(fs.readFileSync(path.join(claude, 'commands', 'fixp', 'ship.md'), 'utf8')).toBe(PLUGIN_COMMAND);
    expect(fs.readFileSync(path.join(claude, 'agents', 'fixp', 'reviewer.md'), 'utf8')).toBe(
      PLUGIN_AGENT.replace('name: reviewer', 'name: "fixp:reviewer"'),
    );
    const settings = JSON.parse(settingsOf(m)) as {
      theme: string;
      hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    };
    expect(settings.theme).toBe('dark');
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'say done' }] }]);
    const pluginDir = path.join(m.places.pluginsDir, 'fixp');
    expect(settings.hooks.SessionStart?.map((group) => group.hooks[0]?.command).sort()).toEqual([
      `"${pluginDir}/hooks/start.sh" --quiet`,
      'echo owner-start',
    ]);
    expect(settings.hooks.Notification).toEqual([{ matcher: 'idle', hooks: [{ type: 'command', command: 'echo owner-notify' }] }]);
    // The plan's `sees` names each as Claude Code lists it: the copied plugin's parts under the plugin.
    expect(documentsSeen(result, 'claude-code')).toEqual([
      ['agent', 'helper', 'written'],
      ['agent', 'fixp:reviewer', 'written'],
      ['command', 'deploy', 'written'],
      ['command', 'fixp:ship', 'written'],
      ['hook', 'hooks-session-start', 'written'],
      ['hook', 'mine-notification', 'written'],
      ['hook', 'mine-session-start', 'written'],
    ]);
    // Codex: hooks in $CODEX_HOME/hooks.json; no Notification event there, no custom prompts, no subagents confirmed.
    const codexHooks = JSON.parse(fs.readFileSync(path.join(m.home, '.codex', 'hooks.json'), 'utf8')) as {
      hooks: Record<string, unknown[]>;
    };
    expect(Object.keys(codexHooks.hooks)).toEqual(['SessionStart']);
    const codexSkips = changesOf(result, 'codex').filter((change) => change.action === 'skip');
    expect(codexSkips).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'hook', name: 'mine-notification', code: 'HOOK_EVENT_UNSUPPORTED' }),
        expect.objectContaining({
          kind: 'command',
          name: 'deploy',
          code: 'DOCUMENT_PLACE_UNCONFIRMED',
          reason: expect.stringMatching(/custom prompts/),
        }),
        expect.objectContaining({ kind: 'agent', name: 'helper', code: 'DOCUMENT_PLACE_UNCONFIRMED' }),
      ]),
    );
    // Again: nothing to do; --check agrees.
    const again = await applier.apply({ runtimes: ['claude-code', 'codex'], mode: 'check' });
    expect(again.upToDate).toBe(true);
  });

  it('for Claude Code 2.1.332, which drops an agent named with a colon, a copied plugin agent keeps its bare name; of two of one name the first is written', async () => {
    const m = machine({
      capabilities: { agents: { 'helper.md': AGENT } },
      home: { '.claude': { 'settings.json': SETTINGS } },
      clients: { claude: '2.1.332 (Claude Code)' },
    });
    const container = openLoadout(m);
    installPlugin(container, m, 'fixp', { agents: { 'reviewer.md': PLUGIN_AGENT } });
    installPlugin(container, m, 'other', { agents: { 'reviewer.md': PLUGIN_AGENT } });
    const result = await resolve(container, RuntimeApplier).apply({ runtimes: ['claude-code'] });
    expect(result.ok).toBe(true);
    const agents = path.join(m.home, '.claude', 'agents');
    expect(fs.readFileSync(path.join(agents, 'fixp', 'reviewer.md'), 'utf8')).toBe(
      PLUGIN_AGENT.replace('name: reviewer', 'name: "reviewer"'),
    );
    // fixp's `reviewer` comes before other's (install order); other's is skipped, named, never written.
    expect(fs.existsSync(path.join(agents, 'other'))).toBe(false);
    expect(documentsSeen(result, 'claude-code')).toEqual([
      ['agent', 'helper', 'written'],
      ['agent', 'reviewer', 'written'],
    ]);
    const skips = changesOf(result, 'claude-code').filter((change) => change.action === 'skip' && change.kind === 'agent');
    expect(skips.map((change) => [change.name, change.code, change.reason])).toEqual([
      ['reviewer', 'DOCUMENT_SAME_NAME', expect.stringMatching(/another agent is listed as reviewer in claude-code already/)],
    ]);
    expect((await resolve(container, RuntimeApplier).apply({ runtimes: ['claude-code'], mode: 'check' })).upToDate).toBe(true);
  });

  it("never overwrites a file of the user's of the same name: a skip that says so", async () => {
    const { m, applier } = world();
    const mine = path.join(m.home, '.claude', 'commands', 'deploy.md');
    fs.mkdirSync(path.dirname(mine), { recursive: true });
    fs.writeFileSync(mine, 'my own deploy\n');
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(fs.readFileSync(mine, 'utf8')).toBe('my own deploy\n');
    expect(changesOf(result, 'claude-code')).toContainEqual(
      expect.objectContaining({ kind: 'command', action: 'skip', code: 'DOCUMENT_COLLISION', name: 'deploy' }),
    );
  });

  it('--dry-run writes nothing and says what apply would do', async () => {
    const { m, applier } = world();
    const result = await applier.apply({ runtimes: ['claude-code'], mode: 'dry-run' });
    expect(settingsOf(m)).toBe(SETTINGS);
    expect(fs.existsSync(path.join(m.home, '.claude', 'agents'))).toBe(false);
    expect(
      changesOf(result, 'claude-code')
        .filter((change) => change.action === 'create')
        .map((change) => `${change.kind}:${change.name}`),
    ).toEqual(
      expect.arrayContaining([
        'agent:helper',
        'agent:reviewer',
        'command:deploy',
        'command:ship',
        'hook:mine-session-start',
        'hook:hooks-session-start',
      ]),
    );
  });

  it("a disabled plugin's documents and hooks leave every runtime; the user's settings are as they were, byte for byte", async () => {
    const { m, container, applier } = world();
    await applier.apply({ runtimes: ['claude-code', 'codex'] });
    resolve(container, PluginRegistry).setEnabled('fixp', false);
    const result = await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(result.retired.map((entry) => `${entry.runtime} ${entry.kind} ${entry.name}`).sort()).toEqual([
      'claude-code agent reviewer',
      'claude-code command ship',
      'claude-code hook hooks-session-start',
      'codex hook hooks-session-start',
    ]);
    expect(fs.existsSync(path.join(m.home, '.claude', 'commands', 'fixp', 'ship.md'))).toBe(false);
    expect(settingsOf(m)).not.toContain('start.sh');
    // Owner's own off too: nothing of Loadout's is left, and the file reads as the user left it.
    await resolve(container, CapabilityStateService).setCapabilityState({}, [
      { kind: 'hook', id: 'mine-session-start', enabled: false },
      { kind: 'hook', id: 'mine-notification', enabled: false },
    ]);
    await applier.apply({ runtimes: ['claude-code', 'codex'] });
    expect(settingsOf(m)).toBe(SETTINGS);
    expect(fs.existsSync(path.join(m.home, '.codex', 'hooks.json'))).toBe(false);
    // A retired hook comes back from the trash, managed again.
    const hook = result.retired.find((entry) => entry.runtime === 'claude-code' && entry.kind === 'hook');
    await applier.restore(hook?.id as string);
    expect(settingsOf(m)).toContain('start.sh');
    const manifest = JSON.parse(fs.readFileSync(path.join(m.places.dataDir, DOCUMENT_MANIFEST_FILE), 'utf8')) as {
      entries: { name: string }[];
    };
    expect(manifest.entries.map((entry) => entry.name)).toEqual(expect.arrayContaining(['hooks-session-start', 'helper', 'deploy']));
  });

  it("a held plugin's hook is never written, and one written before is taken out", async () => {
    const { m, container, applier } = world();
    await applier.apply({ runtimes: ['claude-code'] });
    expect(settingsOf(m)).toContain('start.sh');
    // The trust package's rule in small: every capability of plugin "fixp" is held from now on.
    contribute(container, CapabilityHolds, {
      forSession: () => (records) =>
        new Map(
          records
            .filter((record) => record.plugin === 'fixp' && record.kind === 'hook')
            .map((record) => [record, { decidedBy: 'unapproved-plugin' as const, reason: 'fixp is not approved' }]),
        ),
    });
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(settingsOf(m)).not.toContain('start.sh');
    expect(result.findings).toContainEqual(
      expect.objectContaining({ code: 'CAPABILITY_UNTRUSTED', message: expect.stringMatching(/hook "hooks-session-start" is held/) }),
    );
    expect(fs.readFileSync(path.join(m.home, '.claude', 'agents', 'fixp', 'reviewer.md'), 'utf8')).toContain('fixp:reviewer');
  });

  it("a file of Loadout's the user edited stays theirs when its document goes", async () => {
    const { m, container, applier } = world();
    await applier.apply({ runtimes: ['claude-code'] });
    const ship = path.join(m.home, '.claude', 'commands', 'fixp', 'ship.md');
    fs.writeFileSync(ship, 'edited by hand\n');
    resolve(container, PluginRegistry).setEnabled('fixp', false);
    const result = await applier.apply({ runtimes: ['claude-code'] });
    expect(fs.readFileSync(ship, 'utf8')).toBe('edited by hand\n');
    expect(changesOf(result, 'claude-code')).toContainEqual(expect.objectContaining({ kind: 'command', action: 'release', name: 'ship' }));
  });

  it("11.3 a project's .claude/commands that a link takes out of the project gets nothing, and what is there stays", async () => {
    const { m, applier } = world();
    fs.mkdirSync(path.join(m.project, '.agents', 'commands'), { recursive: true });
    fs.writeFileSync(path.join(m.project, '.agents', 'commands', 'local.md'), 'Local only.\n');
    const elsewhere = path.join(m.base, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(m.project, '.claude'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(m.project, '.claude', 'commands'));
    const result = await applier.apply({ project: m.project, runtimes: ['claude-code'] });
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(changesOf(result, 'claude-code')).toContainEqual(
      expect.objectContaining({ kind: 'command', action: 'skip', code: 'RUNTIME_ROOT_OUTSIDE', name: 'local' }),
    );
    // The owner's commands still reach the user's folder.
    expect(fs.existsSync(path.join(m.home, '.claude', 'commands', 'deploy.md'))).toBe(true);
  });

  it('a runtime whose places are not confirmed gets nothing, each document skipped with the reason', async () => {
    const { applier } = world();
    const result = await applier.apply({ runtimes: ['cursor'], mode: 'dry-run' });
    const skips = changesOf(result, 'cursor').filter((change) => change.kind !== 'skill' && change.kind !== 'server');
    expect(skips.length).toBeGreaterThan(0);
    expect(skips.every((change) => change.action === 'skip' && change.code === 'DOCUMENT_PLACE_UNCONFIRMED')).toBe(true);
  });

  it('copies nothing of a plugin Claude Code reads in place: its agents, commands and hooks arrive with it', async () => {
    const m = machine({ home: { '.claude': { 'settings.json': SETTINGS } } });
    const container = openLoadout(m);
    installPlugin(container, m, 'kit', {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'kit', version: '1.0.0', description: 'A plugin Claude Code reads' }) },
      agents: { 'reviewer.md': PLUGIN_AGENT },
      commands: { 'ship.md': PLUGIN_COMMAND },
    });
    const result = await resolve(container, RuntimeApplier).apply({ runtimes: ['claude-code'] });
    expect(result.ok).toBe(true);
    const claude = path.join(m.home, '.claude');
    expect(fs.existsSync(path.join(claude, 'commands', 'kit'))).toBe(false);
    expect(fs.existsSync(path.join(claude, 'agents', 'kit'))).toBe(false);
    expect(changesOf(result, 'claude-code')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'agent', name: 'reviewer', action: 'skip', code: 'LOADED_IN_PLACE' }),
        expect.objectContaining({ kind: 'command', name: 'ship', action: 'skip', code: 'LOADED_IN_PLACE' }),
      ]),
    );
    // Not copied, yet in what the plan says Claude Code loads: the plugin brings them, named under it.
    expect(documentsSeen(result, 'claude-code')).toEqual([
      ['agent', 'kit:reviewer', 'in-place'],
      ['command', 'kit:ship', 'in-place'],
    ]);
    expect(result.runtimes.find((part) => part.runtime === 'claude-code')?.documents?.sees[0]?.path).toBe(
      '<plugins>/kit/agents/reviewer.md',
    );
    const settings = JSON.parse(settingsOf(m)) as { enabledPlugins?: Record<string, boolean> };
    expect(settings.enabledPlugins).toEqual({ 'kit@loadout': true });
    // why answers for the agent by its bare name and as Claude Code lists it, naming the plugin that brings it.
    const session = await openSession(container, null);
    const plan = await resolve(container, RuntimePlanner).plan(session, ['claude-code']);
    session.dispose();
    for (const asked of ['reviewer', 'kit:reviewer']) {
      const claude = explainSkill(plan, asked).runtimes.find((entry) => entry.runtime === 'claude-code');
      expect(claude?.documents.map((seen) => [seen.kind, seen.name, seen.plugin, seen.state])).toEqual([
        ['agent', 'kit:reviewer', 'kit', 'in-place'],
      ]);
      expect(claude?.reason).toMatch(/; it loads agent kit:reviewer from plugin kit, read in place$/);
    }
    expect(explainSkill(plan, 'other:reviewer').runtimes.find((entry) => entry.runtime === 'claude-code')?.documents).toEqual([]);
  });
});
