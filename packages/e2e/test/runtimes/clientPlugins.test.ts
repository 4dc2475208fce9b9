import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '@loadout/cli/testing';
import { gitRepo } from '@loadout/kernel/testing';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClaudeCodeVersion,
  claudeListing,
  claudeOnPath,
  clientCommand,
  codexListing,
  listedTwice,
  type PlanOutput,
  plannedRuntime,
  REAL_CLIENTS_MS,
} from './realClients.js';

afterEach(() => removeTestdirs());

const skill = (name: string): TreeDescription => ({
  'SKILL.md': `---\nname: ${name}\ndescription: ${name} does one thing well.\n---\nUse ${name}.\n`,
});

/** A plugin shaped like claude-plugins-official's: a manifest, skills, nothing else. */
const toolsPlugin = (): TreeDescription => ({
  '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'tools', version: '1.0.0', description: 'Charts and tables.' }) },
  skills: { charts: skill('charts'), tables: skill('tables') },
});

/**
 * A scratch home where the same plugin `tools` is installed twice: in the client itself, from a
 * local directory marketplace (as `claude plugin install` / `codex plugin add` do it), and through
 * Loadout from its git repository; the owner has a skill of their own too.
 */
function installedTwice() {
  const base = testdir({});
  const home = path.join(base, 'home');
  const work = path.join(home, 'work');
  fs.mkdirSync(work, { recursive: true });
  const market = testdir({
    '.claude-plugin': {
      'marketplace.json': JSON.stringify({
        name: 'local-market',
        owner: { name: 'Someone' },
        plugins: [{ name: 'tools', source: './tools' }],
      }),
    },
    tools: toolsPlugin(),
  });
  const workspace = path.join(base, 'workspace');
  fs.mkdirSync(path.join(workspace, 'plugins'), { recursive: true });
  gitRepo(path.join(workspace, 'capabilities'), { skills: { notes: skill('notes') } });
  const plugin = gitRepo(path.join(base, 'sources', 'tools'), toolsPlugin());
  return { base, home, work, market, workspace, plugin };
}

function loadoutFor(user: ReturnType<typeof installedTwice>, PATH: string) {
  const loadout = (...args: string[]) => runCli(user.workspace, [...args, '--json'], { HOME: user.home, PATH });
  const installed = loadout('plugins', 'install', pathToFileURL(user.plugin).href, '--name', 'tools');
  expect(installed.status, installed.stderr).toBe(0);
  return loadout;
}

const part = plannedRuntime;

describe("a plugin the client installed itself is not written for it again, and the client's own copy is in the plan", () => {
  it.each([
    ['2.1.197', 'charts', 'tables'],
    ['2.1.332', 'tools:charts', 'tools:tables'],
  ] as const)(
    'Claude Code %s',
    async (version: ClaudeCodeVersion, charts, tables) => {
      const user = installedTwice();
      clientCommand(version, user.home, user.work, ['plugin', 'marketplace', 'add', user.market]);
      clientCommand(version, user.home, user.work, ['plugin', 'install', 'tools@local-market']);
      const loadout = loadoutFor(user, `${claudeOnPath(user.base, version)}:${process.env.PATH ?? '/usr/bin:/bin'}`);

      const applied = loadout('apply', '--runtime', 'claude-code');
      expect(applied.status, applied.stderr).toBe(0);
      const claude = part(applied.json<PlanOutput>(), 'claude-code');
      expect(
        claude.changes
          .filter((change) => change.action === 'skip')
          .map((change) => [change.name, change.reason.includes('its own plugin tools@local-market')]),
      ).toEqual([
        ['charts', true],
        ['tables', true],
      ]);
      expect(fs.existsSync(path.join(user.home, '.claude/skills/charts'))).toBe(false);
      expect(fs.existsSync(path.join(user.home, '.claude/skills/notes/SKILL.md'))).toBe(true);
      expect(claude.sees.filter((copy) => copy.state === 'client-plugin').map((copy) => copy.name)).toEqual([charts, tables]);

      const listing = await claudeListing(user.home, user.work, {}, version);
      expect(listedTwice(listing.names)).toEqual([]);
      expect([...listing.names].sort()).toEqual(claude.sees.map((copy) => copy.name).sort());
    },
    REAL_CLIENTS_MS,
  );

  it(
    'Codex 0.171.0',
    async () => {
      const user = installedTwice();
      clientCommand('codex', user.home, user.work, ['plugin', 'marketplace', 'add', user.market]);
      clientCommand('codex', user.home, user.work, ['plugin', 'add', 'tools@local-market']);
      const loadout = loadoutFor(user, process.env.PATH ?? '/usr/bin:/bin');

      const applied = loadout('apply', '--runtime', 'codex');
      expect(applied.status, applied.stderr).toBe(0);
      const codex = part(applied.json<PlanOutput>(), 'codex');
      expect(codex.changes.filter((change) => change.action === 'skip').map((change) => change.name)).toEqual(['charts', 'tables']);
      expect(codex.sees.filter((copy) => copy.state === 'client-plugin').map((copy) => copy.name)).toEqual([
        'tools:charts',
        'tools:tables',
      ]);

      const listing = await codexListing(user.home, user.work);
      const names = listing.skills.map((entry) => entry.name);
      expect(listedTwice(names)).toEqual([]);
      expect(names.sort()).toEqual(codex.sees.map((copy) => copy.name).sort());
    },
    REAL_CLIENTS_MS,
  );
});

describe('Codex 0.171.0 cannot read a plugin folder in place (docs/runtimes.md, "How plugins reach each runtime")', () => {
  it(
    'it loads the copy `codex plugin add` made, not the marketplace folder, and a cache entry that is a link to the folder loads nothing',
    async () => {
      const user = installedTwice();
      clientCommand('codex', user.home, user.work, ['plugin', 'marketplace', 'add', user.market]);
      clientCommand('codex', user.home, user.work, ['plugin', 'add', 'tools@local-market']);
      const copy = path.join(user.home, '.codex', 'plugins', 'cache', 'local-market', 'tools', '1.0.0');
      expect(fs.existsSync(path.join(copy, 'skills', 'charts', 'SKILL.md'))).toBe(true);
      // A skill added to the marketplace folder after the install: Codex reads its copy, so it never sees it.
      fs.mkdirSync(path.join(user.market, 'tools', 'skills', 'later'), { recursive: true });
      fs.writeFileSync(path.join(user.market, 'tools', 'skills', 'later', 'SKILL.md'), skill('later')['SKILL.md'] as string);
      const listed = await codexListing(user.home, user.work);
      const fromPlugin = listed.skills.filter((entry) => entry.name.startsWith('tools:'));
      expect(fromPlugin.map((entry) => entry.name).sort()).toEqual(['tools:charts', 'tools:tables']);
      expect(fromPlugin.every((entry) => entry.path.startsWith(`${copy}${path.sep}`))).toBe(true);

      // Its cache entry made a link to the plugin folder (what reading in place would take): nothing of it is loaded.
      fs.rmSync(copy, { recursive: true });
      fs.symlinkSync(path.join(user.market, 'tools'), copy);
      const linked = await codexListing(user.home, user.work);
      expect(linked.skills.filter((entry) => entry.name.startsWith('tools:'))).toEqual([]);
    },
    REAL_CLIENTS_MS,
  );
});
