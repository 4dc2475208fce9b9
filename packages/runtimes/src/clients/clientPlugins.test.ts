import fs from 'node:fs';
import path from 'node:path';
import { removeTestdirs, testdir, type TreeDescription } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeEnvironmentFrom } from '../RuntimeEnvironment.js';
import { clientPluginSkills } from './clientPlugins.js';

afterEach(() => removeTestdirs());

const skills = (...names: string[]): TreeDescription => ({
  skills: Object.fromEntries(names.map((name) => [name, { 'SKILL.md': `---\nname: ${name}\ndescription: d\n---\n` }])),
});

const names = (found: { pluginId: string; skill: string }[]) => found.map((entry) => `${entry.pluginId}/${entry.skill}`);

describe('the plugins Claude Code installed itself, read as it reads them', () => {
  it('turned on in settings, found in its cache or, for a directory marketplace, where the marketplace points', () => {
    const home = testdir({
      market: {
        '.claude-plugin': {
          'marketplace.json': JSON.stringify({
            name: 'm',
            plugins: [
              { name: 'inplace', source: './inplace' },
              { name: 'escape', source: '../x' },
            ],
          }),
        },
        inplace: skills('draw'),
      },
      '.claude': {
        // A comment and a trailing comma, as people write settings by hand.
        'settings.json':
          '{ // mine\n "enabledPlugins": { "cached@m": true, "inplace@m": true, "off@m": false, "escape@m": true, "gone@m": true, },\n}',
        plugins: {
          'installed_plugins.json': '',
          cache: { m: { cached: { '1.0.0': skills('charts', 'tables') }, off: { '1.0.0': skills('hidden') } } },
        },
      },
      work: { '.claude': { 'settings.local.json': JSON.stringify({ enabledPlugins: { 'cached@m': false } }) } },
    });
    const write = (file: string, value: unknown) => fs.writeFileSync(path.join(home, file), JSON.stringify(value));
    write('.claude/plugins/installed_plugins.json', {
      version: 2,
      plugins: {
        'cached@m': [{ scope: 'user', installPath: path.join(home, '.claude/plugins/cache/m/cached/1.0.0') }],
        'off@m': [{ scope: 'user', installPath: path.join(home, '.claude/plugins/cache/m/off/1.0.0') }],
        'inplace@m': [{ scope: 'user', installPath: path.join(home, '.claude/plugins/cache/m/inplace/1.0.0') }],
      },
    });
    write('.claude/plugins/known_marketplaces.json', {
      m: { source: { source: 'directory', path: path.join(home, 'market') }, installLocation: path.join(home, 'market') },
    });
    const env = runtimeEnvironmentFrom({ HOME: home });
    expect(names(clientPluginSkills('claude-code', null, env))).toEqual(['cached@m/charts', 'cached@m/tables', 'inplace@m/draw']);
    // The project's local settings turn one off for that project only.
    expect(names(clientPluginSkills('claude-code', path.join(home, 'work'), env))).toEqual(['inplace@m/draw']);
  });

  it('settings that cannot be read are no plugins', () => {
    const home = testdir({ '.claude': { 'settings.json': '{ not json' } });
    expect(clientPluginSkills('claude-code', null, runtimeEnvironmentFrom({ HOME: home }))).toEqual([]);
  });
});

describe('the plugins Codex installed itself', () => {
  it('turned on in config.toml, read from the newest copy in its plugin cache', () => {
    const home = testdir({
      '.codex': {
        'config.toml':
          '[plugins."tools@m"]\nenabled = true\n\n[plugins."off@m"]\nenabled = false\n\n[plugins."missing@m"]\nenabled = true\n',
        plugins: { cache: { m: { tools: { '1.9.0': skills('old'), '1.10.0': skills('charts') }, off: { '1.0.0': skills('hidden') } } } },
      },
    });
    expect(names(clientPluginSkills('codex', null, runtimeEnvironmentFrom({ HOME: home })))).toEqual(['tools@m/charts']);
    expect(clientPluginSkills('opencode', null, runtimeEnvironmentFrom({ HOME: home }))).toEqual([]);
  });
});
