import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { PluginPlacement } from '../pluginsInPlace.js';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { applyClaudePlugins, planClaudePlugins } from './claudePluginRegistration.js';

afterEach(removeTestdirs);

const show = (absolute: string): string => absolute;

function machine(settings: string | null) {
  const home = testdir({ plugins: { kit: { '.claude-plugin': { 'plugin.json': '{"name":"kit"}' } } } });
  const dataDir = path.join(home, 'data');
  const settingsFile = path.join(home, '.claude', 'settings.json');
  if (settings !== null) {
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, settings);
  }
  const env = runtimeEnvironmentFrom({ HOME: home });
  const kit: PluginPlacement = {
    plugin: 'kit',
    dir: path.join(home, 'plugins', 'kit'),
    inPlace: true,
    reason: 'in place',
    listedAs: 'kit',
  };
  const copied = (why: string): PluginPlacement[] => [{ ...kit, inPlace: false, reason: `copied: ${why}` }];
  const plan = (placements: PluginPlacement[]) => planClaudePlugins(placements, env, dataDir, show, copied);
  return { home, dataDir, settingsFile, kit, plan };
}

describe('registering Loadout plugins in Claude Code settings', () => {
  it('adds the marketplace, the plugin and the first-start record, then takes every one away, the settings byte for byte again', () => {
    const original = '{\n  "theme": "dark"\n}\n';
    const { home, dataDir, settingsFile, kit, plan } = machine(original);
    const first = plan([kit]);
    expect(first.changes.map((change) => [change.action, change.name, path.basename(change.file)])).toEqual([
      ['create', 'kit@loadout', 'settings.json'],
      ['create', 'loadout', 'settings.json'],
      ['create', 'loadout', 'known_marketplaces.json'],
      ['update', 'loadout', 'marketplace.json'],
    ]);
    applyClaudePlugins(first, show);
    const marketplace = path.join(dataDir, 'runtimes', 'claude-code-marketplace');
    expect(fs.readlinkSync(path.join(marketplace, 'plugins', 'kit'))).toBe(kit.dir);
    const written = fs.readFileSync(settingsFile, 'utf8');
    expect(written.startsWith('{\n  "theme": "dark",')).toBe(true);
    expect(written).toContain('"kit@loadout": true');
    const known = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'plugins', 'known_marketplaces.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(known.loadout).toMatchObject({ source: { source: 'directory', path: marketplace }, installLocation: marketplace });
    expect(plan([kit]).changes).toEqual([]);

    const gone = plan([]);
    expect(gone.changes.map((change) => [change.action, change.name])).toEqual([
      ['retire', 'kit@loadout'],
      ['retire', 'loadout'],
      ['retire', 'loadout'],
      ['retire', 'loadout'],
    ]);
    applyClaudePlugins(gone, show);
    expect(fs.readFileSync(settingsFile, 'utf8')).toBe(original);
    expect(fs.existsSync(marketplace)).toBe(false);
    expect(plan([]).changes).toEqual([]);
  });

  it("copies every plugin when a marketplace named loadout is the user's, and touches nothing", () => {
    const mine = '{"extraKnownMarketplaces":{"loadout":{"source":{"source":"github","repo":"someone/loadout"}}}}';
    const { settingsFile, kit, plan } = machine(mine);
    const part = plan([kit]);
    expect(part.placements[0]).toMatchObject({ inPlace: false, reason: expect.stringContaining('a marketplace named "loadout"') });
    expect(part.changes).toEqual([]);
    applyClaudePlugins(part, show);
    expect(fs.readFileSync(settingsFile, 'utf8')).toBe(mine);
  });

  it('copies every plugin, with a warning, when the settings file cannot be read', () => {
    const { kit, plan } = machine('{ not json');
    const part = plan([kit]);
    expect(part.placements[0]?.inPlace).toBe(false);
    expect(part.findings.map((finding) => finding.code)).toEqual(['CLAUDE_SETTINGS_UNREADABLE']);
  });
});
