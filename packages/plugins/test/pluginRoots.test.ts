import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@loadout/db';
import { ChangeStamps, PluginSource, resolve, resolveAll } from '@loadout/kernel';
import { RACY_MS } from '@loadout/files';
import { gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';

import { AGENT_PLUGINS_1_0 } from '../src/testing/pluginFixtures.js';
import { PluginRoots } from '../src/PluginRoots.js';
import { closeWorkspaces, session, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const SHORT_RACY_MS = 30;
const pause = (ms = SHORT_RACY_MS * 2) => new Promise((done) => setTimeout(done, ms));
const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill` }) });

/** A Claude Code plugin whose manifest lists one extra skills folder, installed into a fresh workspace. */
async function installedPlugin() {
  const ws = workspace();
  const repo = gitRepo(path.join(ws.work, 'kept'), {
    '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'kept', skills: ['./extra'] }) },
    skills: { base: skill('base') },
    extra: { one: skill('one') },
    more: { two: skill('two') },
  });
  const entry = await ws.manager.install(repo);
  return { ws, root: entry.root };
}

describe('plugin layouts kept between sessions', () => {
  it('hands the same layout again while nothing its reading looked at moved, and reads it again after each kind of change', async () => {
    const { ws, root } = await installedPlugin();
    const roots = new PluginRoots(ws.registry, ws.places.dataDir, SHORT_RACY_MS);
    const layout = () => roots.listInstalledPlugins().find((plugin) => plugin.name === 'kept')?.layout;
    await pause();
    const first = layout();
    expect(first?.kinds.skills).toEqual([{ folder: 'skills' }, { folder: 'extra' }]);
    expect(layout()).toBe(first);

    // The manifest, inside a folder the plugin's root listing does not show, edited in place.
    const manifest = path.join(root, '.claude-plugin', 'plugin.json');
    fs.writeFileSync(manifest, JSON.stringify({ name: 'kept', skills: ['./more'] }));
    const edited = layout();
    expect(edited?.kinds.skills).toEqual([{ folder: 'skills' }, { folder: 'more' }]);
    await pause();
    expect(layout()).toBe(layout());

    // A server file appearing at the root, which the format reads without being told.
    fs.writeFileSync(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { docs: { command: 'docs-server' } } }));
    const withServer = layout();
    expect(withServer?.kinds.servers?.map((source) => ('document' in source ? source.document.name : null))).toContain('docs.json');
    await pause();

    // A manifest with higher precedence made later.
    fs.mkdirSync(path.join(root, 'nested'));
    fs.writeFileSync(path.join(root, 'plugin.json'), JSON.stringify({ $schema: AGENT_PLUGINS_1_0, name: 'kept' }));
    const agentPlugins = layout();
    expect(agentPlugins).not.toBe(withServer);
    expect(
      agentPlugins?.diagnostics.some((diagnostic) => diagnostic.message.includes('.claude-plugin/plugin.json (another manifest')),
    ).toBe(true);
    await pause();

    // A stray SKILL.md where no layout puts a skill: reported from the next reading on.
    fs.writeFileSync(path.join(root, 'nested', 'SKILL.md'), skillMarkdown({ name: 'nested', description: 'Nowhere' }));
    expect(layout()?.diagnostics.some((diagnostic) => diagnostic.code === 'PLUGIN_SKILLS_NOT_IN_LAYOUT')).toBe(true);
  });

  it('reads again a layout first read from files changed too recently to trust, and forgets an uninstalled plugin', async () => {
    const { ws } = await installedPlugin();
    const roots = new PluginRoots(ws.registry, ws.places.dataDir, RACY_MS);
    const first = roots.listInstalledPlugins()[0]?.layout;
    expect(roots.listInstalledPlugins()[0]?.layout).not.toBe(first);
    ws.manager.uninstall('kept');
    expect(roots.listInstalledPlugins()).toEqual([]);
  });

  it('the next session sees an edited manifest through the layout the container keeps', async () => {
    const { ws, root } = await installedPlugin();
    expect(resolve(ws.container, PluginSource)).toBe(resolve(ws.container, PluginSource));
    await pause(RACY_MS + 100);
    const mine = (skills: { id: string; plugin: string | null }[]) =>
      skills.filter((record) => record.plugin === 'kept').map((record) => record.id);
    expect(mine((await session(ws)).skills)).toEqual(['base', 'one']);
    expect(mine((await session(ws)).skills)).toEqual(['base', 'one']);
    fs.writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'kept', skills: ['./more'] }));
    expect(mine((await session(ws)).skills)).toEqual(['base', 'two']);
  });
});

describe('the session change stamp and plugin rows', () => {
  it('moves with every write of a plugin row, and stays still with writes no session reads', async () => {
    const { ws } = await installedPlugin();
    const stamp = (): string =>
      resolveAll(ws.container, ChangeStamps)
        .map((contributed) => contributed.current())
        .join('/');
    const db = resolve(ws.container, Database);
    db.exec('CREATE TABLE IF NOT EXISTS scratch_rows (id INTEGER PRIMARY KEY)');
    const before = stamp();
    db.prepare('INSERT INTO scratch_rows DEFAULT VALUES').run();
    expect(stamp()).toBe(before);
    const seen = [before];
    for (const write of [
      () => ws.registry.setEnabled('kept', false),
      () => ws.registry.setOrder(['kept']),
      () => ws.registry.setDefinition('kept', null),
      () => ws.registry.setCommit('kept', 'f'.repeat(40)),
      () => ws.registry.remove('kept'),
    ]) {
      write();
      expect(seen).not.toContain(stamp());
      seen.push(stamp());
    }
  });
});
