import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { git, gitCommit, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MarketplaceManager, type PluginEntry, PluginLockSync } from '../src/index.js';
import { pluginRepo } from '../src/testing/pluginFixtures.js';
import { closeWorkspaces, head, pluginFolders, session, type Workspace, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const lockSync = (ws: Workspace): PluginLockSync => resolve(ws.container, PluginLockSync);
const lockFile = (ws: Workspace) => path.join(ws.places.capabilitiesDir, 'loadout-lock.json');
const readLock = (ws: Workspace) =>
  JSON.parse(fs.readFileSync(lockFile(ws), 'utf8')) as { lockfileVersion: number; plugins: Record<string, unknown>[] };

/** `plugins list` without what belongs to one machine (its folders and install times). */
const portable = (entries: PluginEntry[]) => entries.map(({ dir: _dir, root: _root, installedAt: _at, ...rest }) => rest);

/** The owner commits the lock in their fork; a second machine clones that fork and gets a LOADOUT_HOME of its own. */
function secondMachine(first: Workspace): Workspace {
  git(first.places.capabilitiesDir, 'add', 'loadout-lock.json');
  git(first.places.capabilitiesDir, 'commit', '-q', '-m', 'lock plugins');
  const fork = path.join(testdir(), 'capabilities');
  git(path.dirname(fork), 'clone', '-q', first.places.capabilitiesDir, fork);
  return workspace({ capabilitiesDir: fork });
}

function pullFork(machine: Workspace, first: Workspace): void {
  git(first.places.capabilitiesDir, 'commit', '-q', '-am', 'lock again');
  git(machine.places.capabilitiesDir, 'pull', '-q', '--ff-only');
}

describe('capabilities/loadout-lock.json', () => {
  it('records each plugin (credential-free source, commit, flag, order) on install, update, enable, disable and uninstall', async () => {
    const ws = workspace();
    const alpha = pluginRepo(ws.work, 'alpha-repo', 'a', 'alpha');
    const beta = pluginRepo(ws.work, 'beta-repo', 'b', 'beta');
    await ws.manager.install(alpha);
    await ws.manager.install(beta, { name: 'beta' });
    expect(readLock(ws)).toEqual({
      lockfileVersion: 1,
      plugins: [
        { name: 'alpha', source: { url: `file://${alpha}`, path: '', ref: null }, commit: head(alpha), pinned: false, enabled: true },
        { name: 'beta', source: { url: `file://${beta}`, path: '', ref: null }, commit: head(beta), pinned: false, enabled: true },
      ],
    });
    gitCommit(alpha, { 'README.md': 'v2' }, 'v2');
    await ws.manager.update(['alpha']);
    ws.manager.disable('beta');
    expect(readLock(ws).plugins.map((p) => [p.name, p.commit, p.enabled])).toEqual([
      ['alpha', head(alpha), true],
      ['beta', head(beta), false],
    ]);
    ws.manager.uninstall('alpha');
    expect(readLock(ws).plugins.map((p) => p.name)).toEqual(['beta']);
    expect(fs.readFileSync(lockFile(ws), 'utf8').endsWith('}\n')).toBe(true);
  });

  it('keeps entries pulled from another machine when this one changes a plugin, and refuses to touch a broken lock', async () => {
    const ws = workspace();
    await ws.manager.install(pluginRepo(ws.work, 'alpha-repo', 'a', 'alpha'));
    const lock = readLock(ws);
    const pulled = {
      name: 'from-elsewhere',
      source: { url: 'https://example.invalid/x.git', path: '', ref: null },
      commit: 'c'.repeat(40),
      pinned: false,
      enabled: true,
    };
    fs.writeFileSync(lockFile(ws), JSON.stringify({ ...lock, plugins: [...lock.plugins, pulled] }));
    ws.manager.disable('alpha');
    expect(readLock(ws).plugins.map((p) => [p.name, p.enabled])).toEqual([
      ['alpha', false],
      ['from-elsewhere', true],
    ]);
    fs.writeFileSync(lockFile(ws), '<<<<<<< HEAD\n{}\n=======\n');
    expect(() => ws.manager.enable('alpha')).toThrow(expect.objectContaining({ code: 'PLUGIN_LOCK_INVALID' }));
    expect(ws.registry.get('alpha')?.enabled).toBe(false);
    await expect(ws.manager.install(pluginRepo(ws.work, 'beta-repo', 'b', 'beta'))).rejects.toMatchObject({ code: 'PLUGIN_LOCK_INVALID' });
    expect(pluginFolders(ws)).toEqual(['alpha']);
    expect(fs.readFileSync(lockFile(ws), 'utf8')).toBe('<<<<<<< HEAD\n{}\n=======\n');
  });

  it('round trip: a second machine syncs to the same commits, flags and order; --frozen fails and changes nothing once the lock moves', async () => {
    const a = workspace();
    const alpha = pluginRepo(a.work, 'alpha-repo', 'a', 'alpha');
    const beta = pluginRepo(a.work, 'beta-repo', 'b', 'beta');
    await a.manager.install(alpha);
    await a.manager.install(beta);
    gitCommit(alpha, { 'README.md': 'v2' }, 'v2');
    await a.manager.update(['alpha']);
    a.manager.disable('beta');

    const b = secondMachine(a);
    await expect(lockSync(b).sync({ frozen: true })).rejects.toMatchObject({
      code: 'PLUGINS_OUT_OF_SYNC',
      message: expect.stringMatching(/alpha: would be installed/),
    });
    expect(pluginFolders(b)).toEqual([]);
    const synced = await lockSync(b).sync({ frozen: false });
    expect(synced.changes.map((change) => `${change.name} ${change.action}`)).toEqual(['alpha install', 'beta install']);
    expect(portable(b.manager.list())).toEqual(portable(a.manager.list()));
    expect(head(path.join(b.places.pluginsDir, 'alpha'))).toBe(head(alpha));
    expect(await lockSync(b).sync({ frozen: true })).toEqual({ changes: [], unchanged: ['alpha', 'beta'], reordered: false });
    // The lock file is the owner's: sync reads it and never rewrites it.
    expect(git(b.places.capabilitiesDir, 'status', '--porcelain')).toBe('');

    // Upstream moves: the lock still pins the old commit, so nothing has to move yet; outdated says so.
    gitCommit(alpha, { 'README.md': 'v3' }, 'v3');
    expect(await lockSync(b).sync({ frozen: true })).toMatchObject({ changes: [] });
    expect(await lockSync(b).outdated()).toEqual([
      {
        name: 'alpha',
        locked: head(path.join(b.places.pluginsDir, 'alpha')),
        upstream: head(alpha),
        via: 'branch main',
        behind: 1,
        files: 1,
      },
    ]);

    // The first machine updates: the lock moves, and the second must follow.
    await a.manager.update(['alpha']);
    pullFork(b, a);
    const before = { list: b.manager.list(), folders: pluginFolders(b), alpha: head(path.join(b.places.pluginsDir, 'alpha')) };
    await expect(lockSync(b).sync({ frozen: true })).rejects.toMatchObject({
      code: 'PLUGINS_OUT_OF_SYNC',
      message: expect.stringMatching(/alpha: would move from/),
    });
    expect({ list: b.manager.list(), folders: pluginFolders(b), alpha: head(path.join(b.places.pluginsDir, 'alpha')) }).toEqual(before);
    expect((await lockSync(b).sync({ frozen: false })).changes).toEqual([
      { name: 'alpha', action: 'move', from: before.alpha, to: head(alpha) },
    ]);
    expect(portable(b.manager.list())).toEqual(portable(a.manager.list()));
    expect(await lockSync(b).outdated()).toEqual([]);
    // The moved clone still follows its branch: a later update can fast-forward it.
    expect(git(path.join(b.places.pluginsDir, 'alpha'), 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
  });

  it('removes a plugin the lock does not list, but never one with local changes, and never moves a clone with local changes', async () => {
    const a = workspace();
    const alpha = pluginRepo(a.work, 'alpha-repo', 'a', 'alpha');
    await a.manager.install(alpha);
    const b = secondMachine(a);
    await lockSync(b).sync({ frozen: false });
    const extra = await b.manager.install(pluginRepo(b.work, 'extra-repo', 'x', 'extra'));
    const edited = await b.manager.install(pluginRepo(b.work, 'edited-repo', 'e', 'edited'));
    fs.writeFileSync(path.join(edited.dir, 'NOTES.md'), 'mine');
    git(b.places.capabilitiesDir, 'checkout', '-q', '--', 'loadout-lock.json');
    gitCommit(alpha, { 'README.md': 'v2' }, 'v2');
    await a.manager.update(['alpha']);
    pullFork(b, a);
    fs.writeFileSync(path.join(b.places.pluginsDir, 'alpha', 'scratch.txt'), 'work in progress');
    await expect(lockSync(b).sync({ frozen: false })).rejects.toMatchObject({
      code: 'PLUGINS_SYNC_INCOMPLETE',
      message: expect.stringMatching(
        /alpha: its clone has local changes.*edited: the lock does not list it, but its clone has local changes.*done: extra remove/,
      ),
    });
    expect(pluginFolders(b)).toEqual(['alpha', 'edited']);
    expect(fs.existsSync(extra.dir)).toBe(false);
    expect(fs.readFileSync(path.join(edited.dir, 'NOTES.md'), 'utf8')).toBe('mine');
    expect(b.registry.get('alpha')?.commit).not.toBe(head(alpha));
  });

  it('reproduces marketplace plugins (a folder entry and a whole-definition entry) without the marketplace on the second machine', async () => {
    const a = workspace();
    const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: name }) });
    const market = pluginRepo(a.work, 'market', 'm', null);
    gitCommit(
      market,
      {
        '.claude-plugin': {
          'marketplace.json': JSON.stringify({
            name: 'acme',
            plugins: [
              { name: 'kit', source: './plugins/kit' },
              { name: 'picked', source: './', strict: false, skills: ['./skills/m-reading'] },
            ],
          }),
        },
        plugins: {
          kit: { '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'kit' }) }, skills: { 'kit-skill': skill('kit-skill') } },
        },
      },
      'index',
    );
    await resolve(a.container, MarketplaceManager).add(market);
    await resolve(a.container, MarketplaceManager).install('kit@acme');
    await resolve(a.container, MarketplaceManager).install('picked@acme');
    expect(readLock(a).plugins.map((p) => [p.name, (p.source as { path: string }).path, p.marketplace])).toEqual([
      ['kit', 'plugins/kit', { name: 'acme', url: `file://${market}`, plugin: 'kit' }],
      ['picked', '', { name: 'acme', url: `file://${market}`, plugin: 'picked' }],
    ]);
    const b = secondMachine(a);
    await lockSync(b).sync({ frozen: false });
    expect(portable(b.manager.list())).toEqual(portable(a.manager.list()));
    const skills = (await session(b)).skills.filter((k) => k.plugin !== null).map((k) => `${k.plugin}:${k.id}`);
    expect(skills).toEqual(['kit:kit-skill', 'picked:m-reading']);
  });
});
