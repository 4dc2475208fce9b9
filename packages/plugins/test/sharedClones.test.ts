import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { git, gitCommit, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MarketplaceManager, PluginLockSync } from '../src/index.js';
import { manyPluginsMarketplace, pluginRepo } from '../src/testing/pluginFixtures.js';
import { closeWorkspaces, head, pluginFolders, session, type Workspace, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const marketplaces = (ws: Workspace): MarketplaceManager => resolve(ws.container, MarketplaceManager);
const lockSync = (ws: Workspace): PluginLockSync => resolve(ws.container, PluginLockSync);
const readLock = (ws: Workspace) =>
  JSON.parse(fs.readFileSync(path.join(ws.places.capabilitiesDir, 'loadout-lock.json'), 'utf8')) as {
    plugins: { name: string; commit: string; source: { path: string } }[];
  };
const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill` }) });
const NAMES = Array.from({ length: 10 }, (_, n) => `p${n}`);

/** Bytes a folder takes on disk (allocated blocks, every file and folder, links not followed). */
function diskUse(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    total += fs.lstatSync(path.join(entry.parentPath, entry.name)).blocks * 512;
  }
  return total;
}

/** A marketplace of ten plugins added, and all ten installed from it. */
async function tenInstalled(ws: Workspace): Promise<string> {
  const market = manyPluginsMarketplace(path.join(ws.work, 'market'), 10, 32 * 1024);
  await marketplaces(ws).add(market);
  for (const name of NAMES) await marketplaces(ws).install(`${name}@market`);
  return market;
}

describe('one clone per source repository', () => {
  it('ten plugins of one marketplace repository are folders of one clone, read in place, no bigger than 1.5 plain clones', async () => {
    const ws = workspace();
    const market = await tenInstalled(ws);
    const [clone, ...others] = pluginFolders(ws);
    expect(others).toEqual([]);
    expect(clone).toMatch(/^_market-[0-9a-f]{10}$/);
    const dir = path.join(ws.places.pluginsDir, clone as string);
    expect(ws.manager.list().map((p) => [p.name, p.dir, p.root, p.commit])).toEqual(
      NAMES.map((name) => [name, dir, path.join(dir, 'plugins', name), head(market)]),
    );
    const s = await session(ws);
    expect(s.skills.filter((k) => k.plugin !== null).map((k) => [k.plugin, k.path])).toEqual(
      NAMES.map((name) => [name, path.join(dir, 'plugins', name, 'skills', `${name}-skill`, 'SKILL.md')]),
    );
    const plain = path.join(testdir(), 'plain');
    git(path.dirname(plain), 'clone', '-q', '--single-branch', market, plain);
    expect(diskUse(ws.places.pluginsDir) / diskUse(plain)).toBeLessThanOrEqual(1.5);
    // The lock records each plugin as its repository and its folder, as before.
    expect(readLock(ws).plugins.map((p) => [p.name, p.source.path])).toEqual(NAMES.map((name) => [name, `plugins/${name}`]));
  });

  it("a commit to one plugin's folder makes only that plugin outdated; one update moves every plugin of the clone", async () => {
    const ws = workspace();
    const market = await tenInstalled(ws);
    const installed = head(market);
    gitCommit(market, { 'README.md': '# only the readme changed\n' }, 'outside every plugin');
    expect(await lockSync(ws).outdated()).toEqual([]);
    gitCommit(market, { plugins: { p3: { skills: { 'p3-extra': skill('p3-extra') } } } }, 'p3 only');
    expect(await lockSync(ws).outdated()).toEqual([
      { name: 'p3', locked: installed, upstream: head(market), via: 'branch main', behind: 1, files: 1 },
    ]);
    const updates = await ws.manager.update(['p0']);
    expect(updates.map((u) => [u.name, u.status, u.to])).toEqual(NAMES.map((name) => [name, 'updated', head(market)]));
    expect(new Set(ws.manager.list().map((p) => p.commit))).toEqual(new Set([head(market)]));
    expect(new Set(readLock(ws).plugins.map((p) => p.commit))).toEqual(new Set([head(market)]));
    expect(pluginFolders(ws)).toHaveLength(1);
    expect(await lockSync(ws).outdated()).toEqual([]);
    expect((await session(ws)).skills.filter((k) => k.plugin === 'p3').map((k) => k.id)).toEqual(['p3-extra', 'p3-skill']);
  });

  it('uninstalling a plugin leaves the clone to the others; the last one takes it along', async () => {
    const ws = workspace();
    await tenInstalled(ws);
    const [clone] = pluginFolders(ws);
    for (const name of NAMES.slice(0, 9)) {
      expect(ws.manager.uninstall(name)).toMatchObject({ name, keptFor: expect.arrayContaining(['p9']), warnings: [] });
      expect(pluginFolders(ws)).toEqual([clone]);
    }
    expect(ws.manager.uninstall('p9')).toMatchObject({ keptFor: [], warnings: [] });
    expect(pluginFolders(ws)).toEqual([]);
    expect(readLock(ws).plugins).toEqual([]);
  });

  it('a later entry joins the clone where it is, and is refused with the fix when its folder is only upstream', async () => {
    const ws = workspace();
    const market = manyPluginsMarketplace(path.join(ws.work, 'market'), 2);
    await marketplaces(ws).add(market);
    await marketplaces(ws).install('p0@market');
    const at = head(market);
    const index = JSON.parse(fs.readFileSync(path.join(market, '.claude-plugin', 'marketplace.json'), 'utf8')) as {
      plugins: unknown[];
    };
    index.plugins.push({ name: 'late', source: './plugins/late' });
    gitCommit(
      market,
      { '.claude-plugin': { 'marketplace.json': JSON.stringify(index) }, plugins: { late: { skills: { late: skill('late') } } } },
      'a new plugin',
    );
    await marketplaces(ws).update();
    // p1 was there at the clone's commit: it joins it there, though the index moved on.
    expect(await marketplaces(ws).install('p1@market')).toMatchObject({ name: 'p1', commit: at });
    await expect(marketplaces(ws).install('late@market')).rejects.toMatchObject({
      code: 'PLUGIN_CLONE_BEHIND',
      message: expect.stringMatching(/loadout plugins update p0/),
    });
    expect(ws.manager.list().map((p) => p.name)).toEqual(['p0', 'p1']);
    await ws.manager.update(['p1']);
    expect(await marketplaces(ws).install('late@market')).toMatchObject({ name: 'late', commit: head(market) });
    expect(pluginFolders(ws)).toHaveLength(1);
  });

  it('two repositories whose URLs look alike once redacted never share a clone', async () => {
    const ws = workspace();
    // Path segments like these read as secrets, so the registry shows both URLs as `file://…/[redacted]/market`.
    const first = manyPluginsMarketplace(path.join(ws.work, 'loadout-bench-clones-Mh8njk', 'market'), 1);
    const second = manyPluginsMarketplace(path.join(ws.work, 'loadout-bench-clones-Qx7pLm', 'market'), 1);
    const a = await ws.manager.install(first, { path: 'plugins/p0', name: 'from-first' });
    const b = await ws.manager.install(second, { path: 'plugins/p0', name: 'from-second' });
    expect(a.url).toBe(b.url);
    expect(b.dir).not.toBe(a.dir);
    expect(pluginFolders(ws)).toHaveLength(2);
  });

  it('a second machine syncs the lock into one clone', async () => {
    const a = workspace();
    await tenInstalled(a);
    git(a.places.capabilitiesDir, 'add', 'loadout-lock.json');
    git(a.places.capabilitiesDir, 'commit', '-q', '-m', 'lock plugins');
    const fork = path.join(testdir(), 'capabilities');
    git(path.dirname(fork), 'clone', '-q', a.places.capabilitiesDir, fork);
    const b = workspace({ capabilitiesDir: fork });
    const synced = await lockSync(b).sync({ frozen: false });
    expect(synced.changes.map((c) => `${c.name} ${c.action}`)).toEqual(NAMES.map((name) => `${name} install`));
    expect(pluginFolders(b)).toEqual(pluginFolders(a));
    expect(await lockSync(b).sync({ frozen: true })).toMatchObject({ changes: [] });
    // The lock dropping one plugin removes it and keeps the clone for the rest.
    a.manager.uninstall('p4');
    git(a.places.capabilitiesDir, 'commit', '-q', '-am', 'no p4');
    git(fork, 'pull', '-q', '--ff-only');
    expect((await lockSync(b).sync({ frozen: false })).changes).toEqual([{ name: 'p4', action: 'remove' }]);
    expect(pluginFolders(b)).toHaveLength(1);
    expect(git(fork, 'status', '--porcelain')).toBe('');
  });

  it('a plugin installed before clones were shared keeps its own clone and still updates, reports outdated and uninstalls', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'old-repo', 'o', 'old');
    // What an install made before: a clone of the repository in plugins/<name>, and a row naming no shared clone.
    git(ws.work, 'clone', '-q', upstream, path.join(ws.places.pluginsDir, 'old'));
    ws.registry.add({ name: 'old', url: `file://${upstream}`, ref: null, commit: head(upstream), path: 'skills' });
    expect(ws.registry.get('old')).toMatchObject({ clone: null, dir: path.join(ws.places.pluginsDir, 'old') });
    gitCommit(upstream, { skills: { 'o-more': skill('o-more') } }, 'in its folder');
    expect(await lockSync(ws).outdated()).toEqual([expect.objectContaining({ name: 'old', files: 1 })]);
    expect(await ws.manager.update(['old'])).toEqual([expect.objectContaining({ name: 'old', status: 'updated', to: head(upstream) })]);
    expect(pluginFolders(ws)).toEqual(['old']);
    ws.manager.uninstall('old');
    expect(pluginFolders(ws)).toEqual([]);
  });
});

describe('moving to shared clones', () => {
  it('migrate --apply makes plugins that each have a clone of their own folders of one clone, leaving a changed one alone', async () => {
    const ws = workspace();
    const market = manyPluginsMarketplace(path.join(ws.work, 'market'), 3);
    const commit = head(market);
    // What installs made before clones were shared: a clone of the whole repository per plugin.
    for (const name of ['p0', 'p1', 'p2']) {
      git(ws.work, 'clone', '-q', market, path.join(ws.places.pluginsDir, name));
      ws.registry.add({ name, url: `file://${market}`, ref: null, commit, path: `plugins/${name}` });
    }
    fs.writeFileSync(path.join(ws.places.pluginsDir, 'p2', 'plugins', 'p2', 'notes.md'), 'edited in place\n');
    const before = (await session(ws)).skills.filter((k) => k.plugin !== null).map((k) => k.id);
    expect((await ws.manager.migrate({ apply: false })).clones).toEqual([{ into: null, plugins: ['p0', 'p1', 'p2'], left: [] }]);
    expect(pluginFolders(ws)).toEqual(['p0', 'p1', 'p2']);

    const [share] = (await ws.manager.migrate({ apply: true })).clones;
    expect(share).toMatchObject({ into: expect.stringMatching(/^_market-/), plugins: ['p0', 'p1'], left: ['p2'] });
    expect(pluginFolders(ws)).toEqual([share?.into, 'p2'].sort());
    expect(ws.manager.list().map((p) => [p.name, p.clone])).toEqual([
      ['p0', share?.into],
      ['p1', share?.into],
      ['p2', null],
    ]);
    expect((await session(ws)).skills.filter((k) => k.plugin !== null).map((k) => k.id)).toEqual(before);
    // A later install from the repository joins the shared clone.
    expect((await ws.manager.install(market, { path: 'plugins/p2', name: 'p2-again' })).clone).toBe(share?.into);
  });

  it('sync refuses to move two plugins of one clone to different commits, and gives one its own clone once it is uninstalled', async () => {
    const a = workspace();
    const market = manyPluginsMarketplace(path.join(a.work, 'market'), 2);
    const first = head(market);
    await marketplaces(a).add(market);
    await marketplaces(a).install('p0@market');
    await marketplaces(a).install('p1@market');
    gitCommit(market, { plugins: { p0: { 'notes.md': 'v2\n' } } }, 'v2');
    // The owner's lock holds p0 at the new commit, p1 at the first (as a lock written by per-plugin clones could).
    const lockFile = path.join(a.places.capabilitiesDir, 'loadout-lock.json');
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { plugins: { name: string; commit: string }[] };
    (lock.plugins[0] as { commit: string }).commit = head(market);
    fs.writeFileSync(lockFile, JSON.stringify(lock));
    await expect(lockSync(a).sync({ frozen: false })).rejects.toMatchObject({
      code: 'PLUGINS_SYNC_INCOMPLETE',
      message: expect.stringMatching(/p1: it shares one clone .* with p0, which the lock holds at another commit; uninstall p1/),
    });
    expect(a.registry.get('p0')?.commit).toBe(head(market));
    a.manager.uninstall('p1');
    fs.writeFileSync(lockFile, JSON.stringify(lock));
    await lockSync(a).sync({ frozen: false });
    expect([a.registry.get('p0')?.commit, a.registry.get('p1')?.commit]).toEqual([head(market), first]);
    expect(pluginFolders(a)).toHaveLength(2);
    expect(await lockSync(a).sync({ frozen: true })).toMatchObject({ changes: [] });
  });
});
