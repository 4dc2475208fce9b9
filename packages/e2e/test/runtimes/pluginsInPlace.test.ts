import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '@loadout/cli/testing';
import { editJsonText } from '@loadout/files';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClaudeCodeVersion,
  claudeListing,
  claudeStart,
  claudeOnPath,
  type PlannedRuntime,
  plannedRuntime,
  REAL_CLIENTS_MS,
} from './realClients.js';

afterEach(() => removeTestdirs());

const skill = (name: string, more = '', description = `${name} does one thing well.`): TreeDescription => ({
  'SKILL.md': `---\nname: ${name}\ndescription: ${description}\n${more}---\nUse ${name} when asked.\n`,
});

const manifest = (fields: Record<string, unknown>): TreeDescription => ({ 'plugin.json': JSON.stringify(fields) });

/**
 * A marketplace repository shaped like claude-plugins-official: three channel plugins each shipping
 * `access`, one with skills that break the Agent Skills validator the ways real ones do (`version`,
 * `user-invocable`, a 1,100-character description), one with a command and an agent, and one whose
 * manifest Claude Code refuses (`agents` naming a folder: "agents: Invalid input").
 */
function channelMarketplace(base: string): string {
  return gitRepo(path.join(base, 'sources', 'market'), {
    '.claude-plugin': {
      'marketplace.json': JSON.stringify({
        name: 'market',
        owner: { name: 'Someone' },
        plugins: ['discord', 'telegram', 'imessage', 'refused'].map((name) => ({ name, source: `./plugins/${name}` })),
      }),
    },
    plugins: {
      discord: {
        '.claude-plugin': manifest({ name: 'discord', version: '1.0.0', description: 'Discord channel' }),
        skills: {
          access: skill('access', '', 'Manage who may message you on discord.'),
          versioned: skill('versioned', 'version: 1.2.0\nuser-invocable: true\n'),
          wordy: skill('wordy', '', `Long on purpose. ${'w'.repeat(1100)}`),
        },
      },
      telegram: {
        '.claude-plugin': manifest({ name: 'telegram', version: '1.0.0' }),
        skills: { access: skill('access', '', 'Manage who may message you on telegram.') },
        commands: { 'ping.md': '---\ndescription: Ping the channel\n---\nPing it.\n' },
        agents: { 'relay.md': '---\nname: relay\ndescription: Relays messages\n---\nYou relay messages.\n' },
      },
      imessage: {
        '.claude-plugin': manifest({ name: 'imessage' }),
        skills: { access: skill('access', '', 'Manage who may message you on imessage.') },
      },
      refused: {
        '.claude-plugin': manifest({ name: 'refused', agents: './agents/' }),
        skills: { lonely: skill('lonely') },
        agents: { 'lone.md': '---\nname: lone\ndescription: alone\n---\nYou are alone.\n' },
      },
    },
  });
}

/** The user's own settings, as Claude Code keeps them: Loadout must leave every byte of them. */
const USER_SETTINGS = '{\n    "theme": "dark",\n    "permissions": {\n        "allow": ["Bash(ls)"]\n    }\n}\n';

interface ApplyJson {
  runtimes: (PlannedRuntime & {
    plugins?: { plugin: string; inPlace: boolean; reason: string; listedAs: string }[];
    documents: { sees: { kind: string; name: string; plugin: string | null; state: string }[] } | null;
  })[];
}

describe('Loadout plugins reach Claude Code in place, as its own plugins', () => {
  it.each(['2.1.197', '2.1.332'] as const)(
    'Claude Code %s: the set it lists equals the plan and holds every skill the plugins give natively; disabling one takes it away, settings kept byte for byte',
    async (version: ClaudeCodeVersion) => {
      const base = testdir({});
      const home = path.join(base, 'home');
      const work = path.join(home, 'work');
      fs.mkdirSync(work, { recursive: true });
      fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
      const settingsFile = path.join(home, '.claude', 'settings.json');
      fs.writeFileSync(settingsFile, USER_SETTINGS);
      const workspace = path.join(base, 'workspace');
      gitRepo(path.join(workspace, 'capabilities'), { skills: { notes: skill('notes') } });
      const PATH = `${claudeOnPath(base, version)}:${process.env.PATH ?? '/usr/bin:/bin'}`;
      const loadout = (...args: string[]) => runCli(workspace, args, { HOME: home, PATH });
      const market = channelMarketplace(base);

      expect(loadout('marketplace', 'add', market).status).toBe(0);
      for (const plugin of ['discord', 'telegram', 'imessage']) {
        const installed = loadout('plugins', 'install', `${plugin}@market`, '--json');
        expect(installed.status, installed.stderr).toBe(0);
      }
      // A manifest Claude Code refuses installs (Loadout reads it by its folders), with a warning naming plugin and field.
      const refused = loadout('plugins', 'install', 'refused@market', '--json');
      expect(refused.status, refused.stderr).toBe(0);
      expect(refused.stdout).toContain('PLUGIN_MANIFEST_CLAUDE_REFUSES');
      expect(refused.stdout).toMatch(/plugin refused: Claude Code refuses its \.claude-plugin\/plugin\.json \(agents: /);

      const dryRun = loadout('apply', '--runtime', 'claude-code', '--dry-run');
      expect(dryRun.stdout).toContain('plugin discord: in place');
      expect(dryRun.stdout).toMatch(/plugin refused: copied: Claude Code refuses its manifest \(agents: /);

      const applied = loadout('apply', '--runtime', 'claude-code', '--json');
      expect(applied.status, applied.stderr).toBe(0);
      const plan = plannedRuntime(applied.json<ApplyJson>(), 'claude-code') as ApplyJson['runtimes'][number];
      expect(plan.plugins?.map((placement) => [placement.plugin, placement.inPlace])).toEqual([
        ['discord', true],
        ['telegram', true],
        ['imessage', true],
        ['refused', false],
      ]);
      // In place: nothing of those plugins is copied into ~/.claude/skills; the refused one's skill is.
      expect(
        fs
          .readdirSync(path.join(home, '.claude', 'skills'))
          .filter((name) => !name.startsWith('.'))
          .sort(),
      ).toEqual(['lonely', 'notes']);
      const first = fs.readFileSync(settingsFile, 'utf8');
      expect(JSON.parse(first)).toMatchObject({
        enabledPlugins: { 'discord@loadout': true, 'telegram@loadout': true, 'imessage@loadout': true },
        extraKnownMarketplaces: { loadout: { source: { source: 'directory' } } },
      });
      expect(first.startsWith('{\n    "theme": "dark",\n    "permissions": {\n        "allow": ["Bash(ls)"]\n    },')).toBe(true);

      // The first start of the client lists exactly what the plan says it sees (2.1.197 too).
      const listing = await claudeListing(home, work, {}, version);
      const seen = plan.sees.map((copy) => copy.name);
      // The agents and commands telegram carries come with the plugin, read in place; the refused plugin's agent is
      // copied, named `refused:lone` for 2.1.197 and `lone` for 2.1.332, which drops an agent whose name holds a colon.
      const documents = plan.documents?.sees ?? [];
      const copiedAgent = version === '2.1.332' ? 'lone' : 'refused:lone';
      expect(documents.map((entry) => [entry.kind, entry.name, entry.state]).sort()).toEqual(
        [
          ['agent', copiedAgent, 'written'],
          ['agent', 'telegram:relay', 'in-place'],
          ['command', 'telegram:ping', 'in-place'],
        ].sort(),
      );
      const commands = documents.filter((entry) => entry.kind === 'command').map((entry) => entry.name);
      expect(listing.names.sort()).toEqual([...seen, ...commands].sort());

      // Every skill the same plugins give natively (`--plugin-dir`) is listed through Loadout too.
      const nativeHome = path.join(base, 'native-home');
      fs.mkdirSync(path.join(nativeHome, 'work'), { recursive: true });
      const bare = await claudeListing(nativeHome, path.join(nativeHome, 'work'), {}, version);
      const folders = ['discord', 'telegram', 'imessage', 'refused'].map((name) => path.join(market, 'plugins', name));
      const native = await claudeListing(
        nativeHome,
        path.join(nativeHome, 'work'),
        {},
        version,
        folders.flatMap((folder) => ['--plugin-dir', folder]),
      );
      // The agents it starts with beyond its own are exactly the ones the plan says it sees, for either version.
      const agents = (await claudeStart(home, work, version)).agents;
      const ownAgents = (await claudeStart(nativeHome, path.join(nativeHome, 'work'), version)).agents;
      expect(agents.filter((name) => !ownAgents.includes(name)).sort()).toEqual(
        documents
          .filter((entry) => entry.kind === 'agent')
          .map((entry) => entry.name)
          .sort(),
      );
      const fromPlugins = native.names.filter((name) => !bare.names.includes(name));
      expect(fromPlugins.length).toBeGreaterThanOrEqual(6);
      for (const name of fromPlugins) expect(listing.names).toContain(name);
      expect(listing.names.filter((name) => name === 'access' || name.endsWith(':access'))).toHaveLength(3);

      // why names the plugin read in place, and why the refused one is copied.
      const why = loadout('why', 'discord:access', '--json');
      expect(why.stdout).toContain('reads plugin discord in place');
      // why answers for an agent the plugin read in place brings, by its bare name too.
      const whyAgent = loadout('why', 'relay');
      expect(whyAgent.status, whyAgent.stderr).toBe(0);
      expect(whyAgent.stdout).toMatch(/agent telegram:relay: plugin telegram, read in place/);
      const whyCopied = loadout('why', 'lonely');
      expect(whyCopied.stdout).toMatch(/plugin refused: copied: Claude Code refuses its manifest \(agents: /);

      // Disabling a plugin takes it away: its enabledPlugins entry alone leaves the settings.
      expect(loadout('plugins', 'disable', 'telegram').status).toBe(0);
      const again = loadout('apply', '--runtime', 'claude-code', '--json');
      expect(again.status, again.stderr).toBe(0);
      const changes = plannedRuntime(again.json<ApplyJson>(), 'claude-code').changes;
      expect(changes).toContainEqual(expect.objectContaining({ action: 'retire', name: 'telegram@loadout' }));
      expect(fs.readFileSync(settingsFile, 'utf8')).toBe(
        editJsonText(first, [{ path: ['enabledPlugins', 'telegram@loadout'], value: undefined }]),
      );
      const without = await claudeListing(home, work, {}, version);
      expect(without.names.filter((name) => name.startsWith('telegram:'))).toEqual([]);
      expect(without.names.filter((name) => name === 'access' || name.endsWith(':access'))).toHaveLength(2);
      expect(loadout('apply', '--runtime', 'claude-code', '--check').status).toBe(0);

      // With no plugin left in place, the user's settings are their own bytes again.
      for (const plugin of ['discord', 'imessage']) expect(loadout('plugins', 'disable', plugin).status).toBe(0);
      expect(loadout('apply', '--runtime', 'claude-code').status).toBe(0);
      expect(fs.readFileSync(settingsFile, 'utf8')).toBe(USER_SETTINGS);
      const known = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'plugins', 'known_marketplaces.json'), 'utf8')) as object;
      expect(Object.keys(known)).not.toContain('loadout');
    },
    REAL_CLIENTS_MS * 3,
  );
});
