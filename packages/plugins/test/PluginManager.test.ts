import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { agentPluginsManifest, pluginRepo, pluginTree, startGitHttpsServer } from '../src/testing/index.js';
import { closeWorkspaces, head, pluginFolders, session, type Workspace, workspace } from './pluginWorkspace.js';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  closeWorkspaces();
  removeTestdirs();
});

/** Everything an install must not change when it is refused. */
function installedState(ws: Workspace) {
  return {
    rows: ws.registry.list(),
    folders: pluginFolders(ws),
    heads: ws.registry.list().map((p) => head(p.dir)),
    owner: git(ws.places.capabilitiesDir, 'status', '--porcelain'),
  };
}

describe('PluginManager.install', () => {
  it('clones into plugins/<name>, records it, and the next session reads every kind where it lives', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'pdf-plugin', 'pdf');
    const entry = await ws.manager.install(upstream);
    expect(entry).toMatchObject({
      name: 'pdf-tools',
      url: `file://${upstream}`,
      commit: head(upstream),
      enabled: true,
      dir: path.join(ws.places.pluginsDir, 'pdf-tools'),
    });
    expect(pluginFolders(ws)).toEqual(['pdf-tools']);
    expect(fs.statSync(entry.dir).mode & 0o777).toBe(0o755);
    const s = await session(ws);
    expect(s.roots.map((r) => r.plugin)).toEqual([null, 'pdf-tools']);
    expect(s.skills).toContainEqual(expect.objectContaining({ id: 'pdf-reading', plugin: 'pdf-tools' }));
    expect(s.affordances).toContainEqual(expect.objectContaining({ id: 'pdf-viewer', plugin: 'pdf-tools' }));
    expect(s.notifications).toContainEqual(expect.objectContaining({ id: 'pdf-events', plugin: 'pdf-tools' }));
    expect(s.servers).toContainEqual(expect.objectContaining({ id: 'pdf-server', plugin: 'pdf-tools' }));
    expect(s.tasks).toContainEqual(expect.objectContaining({ dirName: 'pdf-count', plugin: 'pdf-tools' }));
    // The lock file is the one change in the owner's repository: it is meant to travel with it.
    expect(git(ws.places.capabilitiesDir, 'status', '--porcelain')).toBe('?? loadout-lock.json\n');
    const { format, manifest, diagnostics, loaded, summary, ...row } = entry;
    expect({ format, manifest, diagnostics }).toEqual({ format: 'agent-plugins', manifest: 'plugin.json', diagnostics: [] });
    expect(loaded.map((kind) => kind.kind)).toEqual(['skill', 'affordance', 'notification', 'server', 'task']);
    expect(summary).toBe('1 skill, 1 affordance, 1 notification, 1 server, 1 task');
    expect(ws.manager.list()).toEqual([row]);
  });

  it('names a plugin from --name, then plugin.json, then .claude-plugin/plugin.json, then the repository name', async () => {
    const ws = workspace();
    const withManifest = pluginRepo(ws.work, 'has-manifest', 'a', 'from-manifest');
    expect((await ws.manager.install(withManifest, { name: 'chosen' })).name).toBe('chosen');
    expect((await ws.manager.install(withManifest)).name).toBe('from-manifest');
    const claude = gitRepo(path.join(ws.work, 'claude-style'), {
      ...pluginTree('b', null),
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'claude-named', description: 'x' }) },
    });
    expect((await ws.manager.install(claude)).name).toBe('claude-named');
    const bare = pluginRepo(ws.work, 'agent-skills', 'c', null);
    expect((await ws.manager.install(`file://${bare}/.git`)).name).toBe('agent-skills');
    expect(ws.manager.list().map((p) => p.name)).toEqual(['chosen', 'from-manifest', 'claude-named', 'agent-skills']);
  });

  it.each([
    ['a plugin.json name that is not a valid name', { 'plugin.json': agentPluginsManifest('../Escape') }, 'PLUGIN_MANIFEST_INVALID'],
    [
      'a .claude-plugin/plugin.json name that is not a valid name',
      { '.claude-plugin': { 'plugin.json': JSON.stringify({ name: '../Escape' }) } },
      'PLUGIN_NAME_INVALID',
    ],
    ['a malformed plugin.json', { 'plugin.json': '{ "name": ' }, 'PLUGIN_MANIFEST_INVALID'],
    ['a plugin.json that is not an object', { 'plugin.json': '["x"]' }, 'PLUGIN_MANIFEST_INVALID'],
  ])('refuses %s and leaves nothing behind', async (_what, manifest, code) => {
    const ws = workspace();
    const upstream = gitRepo(path.join(ws.work, 'bad-manifest'), { ...pluginTree('d', null), ...manifest });
    await expect(ws.manager.install(upstream)).rejects.toMatchObject({ code });
    expect(pluginFolders(ws)).toEqual([]);
    expect(ws.registry.list()).toEqual([]);
  });

  it('installs a plugin.json without $schema as a plain plugin named by it (a manifest from before Agent Plugins)', async () => {
    const ws = workspace();
    const upstream = gitRepo(path.join(ws.work, 'old-style'), {
      ...pluginTree('d', null),
      'plugin.json': JSON.stringify({ name: 'no-schema' }),
    });
    expect((await ws.manager.install(upstream)).name).toBe('no-schema');
    expect(ws.registry.list().map((p) => p.name)).toEqual(['no-schema']);
  });

  it('refuses a repository base name that is not a valid name, with a hint, and accepts --name instead', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'My_Skills', 'e', null);
    await expect(ws.manager.install(upstream)).rejects.toMatchObject({
      code: 'PLUGIN_NAME_INVALID',
      message: expect.stringContaining('--name'),
    });
    expect(pluginFolders(ws)).toEqual([]);
    expect((await ws.manager.install(upstream, { name: 'my-skills' })).name).toBe('my-skills');
  });

  it('does not read a plugin.json that links outside the clone', async () => {
    const ws = workspace();
    const secret = path.join(ws.work, 'secret.json');
    fs.writeFileSync(secret, JSON.stringify({ name: 'stolen' }));
    const upstream = pluginRepo(ws.work, 'linky', 'f', null);
    fs.symlinkSync(secret, path.join(upstream, 'plugin.json'));
    gitCommit(upstream, {}, 'link manifest');
    await expect(ws.manager.install(upstream)).rejects.toMatchObject({
      code: 'PLUGIN_MANIFEST_INVALID',
      message: expect.stringContaining('outside'),
    });
    expect(pluginFolders(ws)).toEqual([]);
  });

  it('refuses a name that is taken, by a plugin or by a stray folder, and changes nothing', async () => {
    const ws = workspace();
    const first = pluginRepo(ws.work, 'first', 'g', 'taken');
    await ws.manager.install(first);
    fs.mkdirSync(path.join(ws.places.pluginsDir, 'stray'));
    const before = installedState(ws);
    const second = pluginRepo(ws.work, 'second', 'h', 'taken');
    await expect(ws.manager.install(second)).rejects.toMatchObject({ code: 'PLUGIN_EXISTS', category: 'conflict' });
    await expect(ws.manager.install(second, { name: 'taken' })).rejects.toMatchObject({ code: 'PLUGIN_EXISTS' });
    await expect(ws.manager.install(second, { name: 'stray' })).rejects.toMatchObject({ code: 'PLUGIN_FOLDER_EXISTS' });
    expect(installedState(ws)).toEqual(before);
    expect(fs.existsSync(path.join(ws.places.pluginsDir, 'taken', 'skills', 'g-reading'))).toBe(true);
  });

  it('refuses a repository that loads nothing: no kind folder at its root, or one that links out of it', async () => {
    const ws = workspace();
    const plain = gitRepo(path.join(ws.work, 'not-a-plugin'), { 'README.md': 'hello', docs: { 'skills.md': 'x' } });
    await expect(ws.manager.install(plain)).rejects.toMatchObject({
      code: 'PLUGIN_NOT_A_PLUGIN',
      message: expect.stringContaining('skills'),
    });
    // What a link outside the clone holds is not the plugin's: the session never reads it, so nothing loads.
    const outside = path.join(ws.work, 'outside');
    fs.mkdirSync(path.join(outside, 'a'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'a', 'SKILL.md'), skillMarkdown({ name: 'a', description: 'Out of the clone' }));
    const linked = gitRepo(path.join(ws.work, 'linked'), { 'README.md': 'hello' });
    fs.symlinkSync(outside, path.join(linked, 'skills'));
    gitCommit(linked, {}, 'link');
    await expect(ws.manager.install(linked)).rejects.toMatchObject({ code: 'PLUGIN_NOT_A_PLUGIN' });
    expect(pluginFolders(ws)).toEqual([]);
    expect(ws.registry.list()).toEqual([]);
  });

  it('refuses a repository with a submodule; the submodule is never fetched', async () => {
    const ws = workspace();
    const library = pluginRepo(ws.work, 'library', 'lib', 'library');
    const upstream = pluginRepo(ws.work, 'with-submodule', 'i', 'with-submodule');
    git(upstream, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'vendor/library');
    gitCommit(upstream, {}, 'add submodule');
    await expect(ws.manager.install(upstream)).rejects.toMatchObject({ code: 'PLUGIN_HAS_SUBMODULES', category: 'invalid' });
    expect(pluginFolders(ws)).toEqual([]);
    expect(ws.registry.list()).toEqual([]);
  });

  it('refuses a repository whose .gitmodules carries a command; the command never runs', async () => {
    const ws = workspace();
    const marker = path.join(ws.work, 'submodule-ran');
    const library = pluginRepo(ws.work, 'library', 'lib', 'library');
    const upstream = pluginRepo(ws.work, 'hostile-submodule', 'i', 'hostile-submodule');
    git(upstream, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'vendor/library');
    git(upstream, 'config', '-f', '.gitmodules', 'submodule.vendor/library.update', `!touch ${marker}`);
    gitCommit(upstream, {}, 'add submodule');
    await expect(ws.manager.install(upstream)).rejects.toMatchObject({ code: 'PLUGIN_REPOSITORY_UNSAFE', category: 'invalid' });
    expect(fs.existsSync(marker)).toBe(false);
    expect(pluginFolders(ws)).toEqual([]);
    expect(ws.registry.list()).toEqual([]);
  });

  it("runs no hook: neither the source repository's nor one the user's git config points at", async () => {
    const work = testdir();
    const marker = path.join(work, 'hook-ran');
    const hooks = path.join(work, 'hooks');
    fs.mkdirSync(hooks);
    for (const hook of ['post-checkout', 'post-merge', 'reference-transaction']) {
      fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`, { mode: 0o755 });
    }
    const ws = workspace({ gitConfig: { core: { hooksPath: hooks } } });
    const upstream = pluginRepo(ws.work, 'hooked', 'j', 'hooked');
    fs.copyFileSync(path.join(hooks, 'post-checkout'), path.join(upstream, '.git', 'hooks', 'post-checkout'));
    fs.chmodSync(path.join(upstream, '.git', 'hooks', 'post-checkout'), 0o755);

    // The control: plain git with the same HOME does run the hook, so the test can see one.
    execFileSync('git', ['clone', '-q', upstream, path.join(work, 'control')], { env: { PATH: process.env.PATH, HOME: ws.gitHomeDir } });
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    await ws.manager.install(upstream);
    gitCommit(upstream, { 'README.md': 'changed\n' }, 'second');
    await ws.manager.update(['hooked']);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("ignores the user's GIT_* variables: a leaked GIT_DIR or config parameter changes nothing", async () => {
    const work = testdir();
    const marker = path.join(work, 'hook-ran');
    fs.writeFileSync(path.join(work, 'post-checkout'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const ws = workspace({
      env: {
        GIT_DIR: path.join(work, 'nowhere'),
        GIT_CONFIG_PARAMETERS: `'core.hookspath'='${work}'`,
        GIT_CONFIG_GLOBAL: path.join(work, 'nowhere.gitconfig'),
      },
    });
    const upstream = pluginRepo(ws.work, 'env-plugin', 'k', 'env-plugin');
    const entry = await ws.manager.install(upstream);
    expect(entry.commit).toBe(head(upstream));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it.each([
    ['ext:: with a command', 'ext::sh -c touch% MARKER'],
    ['ext:: without spaces', 'ext::touch'],
    ['--upload-pack', '--upload-pack=touch MARKER'],
    ['--upload-pack without spaces', '--upload-pack=touch'],
    ['an ssh option as host', '-oProxyCommand=touch'],
    ['an ssh option in an ssh URL', 'ssh://-oProxyCommand=touch/x'],
    ['-c config', '-c'],
    ['a control character', 'file:///tmp/x\u0007'],
    ['http', 'http://127.0.0.1:1/x.git'],
  ])('refuses the URL %s before git starts and changes nothing', async (_what, template) => {
    const ws = workspace();
    await ws.manager.install(pluginRepo(ws.work, 'kept', 'l', 'kept'));
    const before = installedState(ws);
    const marker = path.join(ws.work, 'marker');
    await expect(ws.manager.install(template.replace('MARKER', marker))).rejects.toMatchObject({
      category: 'invalid',
      code: 'PLUGIN_URL_REFUSED',
    });
    expect(fs.existsSync(marker)).toBe(false);
    expect(installedState(ws)).toEqual(before);
  });

  it.each([['..'], ['../escape'], ['Upper'], ['x'.repeat(65)], ['-x'], ['a/b'], ['']])(
    'refuses the name %j before git starts',
    async (name) => {
      const ws = workspace();
      const upstream = pluginRepo(ws.work, 'named', 'm', 'named');
      await expect(ws.manager.install(upstream, { name })).rejects.toMatchObject({ code: 'PLUGIN_NAME_INVALID' });
      expect(pluginFolders(ws)).toEqual([]);
    },
  );

  it.each([['--upload-pack=touch'], ['-c'], ['main;touch'], ['a..b'], ['x y']])('refuses the ref %j before git starts', async (ref) => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'reffed', 'n', 'reffed');
    await expect(ws.manager.install(upstream, { ref })).rejects.toMatchObject({ code: 'PLUGIN_REF_INVALID' });
    expect(pluginFolders(ws)).toEqual([]);
  });

  it('reports a failed clone as a git error and leaves no folder and no row', async () => {
    const ws = workspace();
    await expect(ws.manager.install(`file://${ws.work}/missing-repo`)).rejects.toMatchObject({
      code: 'PLUGIN_GIT_FAILED',
      category: 'failed',
    });
    const upstream = pluginRepo(ws.work, 'no-such-ref', 'o', 'no-such-ref');
    const refused = await ws.manager.install(upstream, { ref: 'does-not-exist' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'PLUGIN_GIT_FAILED' });
    // The reason as git gives it, first; never the line naming the staging folder the clone went to.
    expect((refused as Error).message).toMatch(
      /^git clone failed: warning: Could not find remote branch does-not-exist to clone\. fatal: Remote branch does-not-exist not found/,
    );
    expect((refused as Error).message).not.toContain('Cloning into');
    expect(pluginFolders(ws)).toEqual([]);
    expect(ws.registry.list()).toEqual([]);
  });

  it('installs at a branch or a tag given with --ref; a tag is pinned and update leaves it alone', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'versions', 'p', 'versions');
    git(upstream, 'tag', 'v1');
    git(upstream, 'checkout', '-q', '-b', 'next');
    gitCommit(upstream, { skills: { 'p-next': { 'SKILL.md': skillMarkdown({ name: 'p-next', description: 'Only on next' }) } } }, 'next');
    git(upstream, 'checkout', '-q', 'main');
    const onNext = await ws.manager.install(upstream, { ref: 'next', name: 'on-next' });
    expect(onNext).toMatchObject({ ref: 'next', commit: git(upstream, 'rev-parse', 'next').trim() });
    const pinned = await ws.manager.install(upstream, { ref: 'v1', name: 'pinned' });
    expect(pinned.commit).toBe(git(upstream, 'rev-parse', 'v1^{commit}').trim());
    gitCommit(upstream, { 'README.md': 'newer\n' }, 'newer on main');
    expect(await ws.manager.update(['pinned'])).toEqual([{ name: 'pinned', status: 'pinned', from: pinned.commit, to: pinned.commit }]);
  });

  it('installs a plugin whose skills folder links outside the clone; the link is not read, the good skill beside it loads', async () => {
    const ws = workspace();
    const outside = path.join(ws.work, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'SECRET.md'), skillMarkdown({ name: 'secret-skill', description: 'TOP-SECRET-CONTENT' }));
    fs.mkdirSync(path.join(outside, 'dir'));
    fs.writeFileSync(path.join(outside, 'dir', 'SKILL.md'), skillMarkdown({ name: 'secret-dir', description: 'TOP-SECRET-DIR' }));
    const upstream = pluginRepo(ws.work, 'linky-skills', 'q', 'linky-skills');
    fs.symlinkSync(path.join(outside, 'SECRET.md'), path.join(upstream, 'skills', 'stolen.md'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(upstream, 'skills', 'stolen-dir'));
    gitCommit(upstream, {}, 'links');
    await ws.manager.install(upstream);
    const s = await session(ws);
    expect(s.skills.map((k) => k.id)).toEqual(expect.arrayContaining(['q-reading']));
    expect(JSON.stringify(s)).not.toContain('TOP-SECRET');
    expect(s.diagnostics.filter((d) => d.code === 'PATH_OUTSIDE_ROOT').length).toBeGreaterThanOrEqual(2);
  });
});

describe('PluginManager.update', () => {
  it('fast-forwards to a new upstream commit, records it, and the next session shows the new content', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'live', 'r', 'live');
    const installed = await ws.manager.install(upstream);
    gitCommit(
      upstream,
      { skills: { 'r-reading': { 'SKILL.md': skillMarkdown({ name: 'r-reading', description: 'Read r files, second edition' }) } } },
      'v2',
    );
    const [result] = await ws.manager.update(['live']);
    expect(result).toEqual({ name: 'live', status: 'updated', from: installed.commit, to: head(upstream) });
    expect(ws.registry.get('live')?.commit).toBe(head(upstream));
    expect((await session(ws)).skills).toContainEqual(
      expect.objectContaining({ id: 'r-reading', description: 'Read r files, second edition' }),
    );
    expect(await ws.manager.update()).toEqual([{ name: 'live', status: 'up-to-date', from: head(upstream), to: head(upstream) }]);
    // The lock file is the one change in the owner's repository: it is meant to travel with it.
    expect(git(ws.places.capabilitiesDir, 'status', '--porcelain')).toBe('?? loadout-lock.json\n');
  });

  it.each([
    ['an edited file', (dir: string) => fs.appendFileSync(path.join(dir, 'README.md'), 'local edit\n')],
    ['an untracked file', (dir: string) => fs.writeFileSync(path.join(dir, 'skills', 'mine.md'), 'x')],
  ])('refuses when the clone has local changes (%s) and changes nothing', async (_what, change) => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'dirty', 's', 'dirty');
    const installed = await ws.manager.install(upstream);
    gitCommit(upstream, { 'README.md': 'upstream\n' }, 'v2');
    change(installed.dir);
    await expect(ws.manager.update(['dirty'])).rejects.toMatchObject({
      code: 'PLUGIN_LOCAL_CHANGES',
      category: 'conflict',
      message: expect.stringContaining('local changes'),
    });
    expect(head(installed.dir)).toBe(installed.commit);
    expect(ws.registry.get('dirty')?.commit).toBe(installed.commit);
  });

  it('refuses when upstream history was rewritten and cannot fast-forward', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'rewritten', 't', 'rewritten');
    const installed = await ws.manager.install(upstream);
    git(upstream, 'commit', '-q', '--amend', '-m', 'rewritten history');
    await expect(ws.manager.update(['rewritten'])).rejects.toMatchObject({ code: 'PLUGIN_NOT_FAST_FORWARD' });
    expect(head(installed.dir)).toBe(installed.commit);
  });

  it('refuses an upstream commit that adds a submodule, before checking it out', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'grows-submodule', 'u', 'grows-submodule');
    const installed = await ws.manager.install(upstream);
    const library = pluginRepo(ws.work, 'lib2', 'v', 'lib2');
    git(upstream, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'vendor/lib');
    gitCommit(upstream, {}, 'add submodule');
    await expect(ws.manager.update(['grows-submodule'])).rejects.toMatchObject({ code: 'PLUGIN_HAS_SUBMODULES' });
    expect(head(installed.dir)).toBe(installed.commit);
    expect(fs.existsSync(path.join(installed.dir, '.gitmodules'))).toBe(false);
  });

  it('refuses an unknown name before fetching anything', async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'known', 'w', 'known');
    const installed = await ws.manager.install(upstream);
    gitCommit(upstream, { 'README.md': 'v2\n' }, 'v2');
    await expect(ws.manager.update(['known', 'unknown'])).rejects.toMatchObject({ code: 'PLUGIN_NOT_FOUND', category: 'not_found' });
    expect(head(installed.dir)).toBe(installed.commit);
  });

  it('updates every plugin it can and names the ones it refused', async () => {
    const ws = workspace();
    const good = pluginRepo(ws.work, 'good', 'x', 'good');
    const bad = pluginRepo(ws.work, 'bad', 'y', 'bad');
    await ws.manager.install(good);
    const badEntry = await ws.manager.install(bad);
    gitCommit(good, { 'README.md': 'v2\n' }, 'v2');
    gitCommit(bad, { 'README.md': 'v2\n' }, 'v2');
    fs.writeFileSync(path.join(badEntry.dir, 'README.md'), 'edited in place\n');
    await expect(ws.manager.update()).rejects.toMatchObject({
      code: 'PLUGIN_UPDATE_INCOMPLETE',
      message: expect.stringMatching(/plugin bad has local changes.*good updated/),
    });
    expect(ws.registry.get('good')?.commit).toBe(head(good));
    expect(ws.registry.get('bad')?.commit).toBe(badEntry.commit);
  });
});

describe('PluginManager enable, disable and uninstall', () => {
  it('a disabled plugin contributes nothing to the next session; enable brings it back', async () => {
    const ws = workspace();
    await ws.manager.install(pluginRepo(ws.work, 'toggled', 'z', 'toggled'));
    expect(ws.manager.disable('toggled')).toMatchObject({ name: 'toggled', enabled: false });
    const off = await session(ws);
    expect(off.roots.map((r) => r.plugin)).toEqual([null]);
    const all = [...off.skills, ...off.affordances, ...off.notifications, ...off.servers, ...off.tasks];
    expect(all.filter((r) => r.plugin !== null)).toEqual([]);
    expect(off.skillsBlock).not.toContain('z-reading');
    expect(off.affordanceBlock).not.toContain('z-viewer');
    expect(ws.manager.enable('toggled')).toMatchObject({ enabled: true });
    const on = await session(ws);
    expect(on.skillsBlock).toContain('z-reading');
    expect(on.affordanceBlock).toContain('z-viewer');
  });

  it('uninstall removes the folder and the row and tells every listener; a failing listener is a warning', async () => {
    const told: string[] = [];
    const ws = workspace({
      listeners: [
        { pluginUninstalled: (name) => told.push(name) },
        {
          pluginUninstalled: () => {
            throw new Error('state is unavailable');
          },
        },
      ],
    });
    const kept = await ws.manager.install(pluginRepo(ws.work, 'kept', 'aa', 'kept'));
    const gone = await ws.manager.install(pluginRepo(ws.work, 'gone', 'bb', 'gone'));
    const result = ws.manager.uninstall('gone');
    expect(result).toMatchObject({ name: 'gone', dir: gone.dir });
    expect(result.warnings).toEqual([expect.stringContaining('state is unavailable')]);
    expect(told).toEqual(['gone']);
    expect(fs.existsSync(gone.dir)).toBe(false);
    expect(pluginFolders(ws)).toEqual(['kept']);
    expect(ws.manager.list().map((p) => p.name)).toEqual(['kept']);
    expect(head(kept.dir)).toBe(kept.commit);
    expect((await session(ws)).roots.map((r) => r.plugin)).toEqual([null, 'kept']);
    // The lock file is the one change in the owner's repository: it is meant to travel with it.
    expect(git(ws.places.capabilitiesDir, 'status', '--porcelain')).toBe('?? loadout-lock.json\n');
  });

  it('refuses an unknown plugin with a not-found error', () => {
    const ws = workspace();
    for (const act of [() => ws.manager.enable('nope'), () => ws.manager.disable('nope'), () => ws.manager.uninstall('nope')]) {
      expect(act).toThrow(expect.objectContaining({ code: 'PLUGIN_NOT_FOUND', category: 'not_found' }));
    }
  });
});

describe('PluginManager.migrate', () => {
  it("lists untracked, unignored, byte-identical copies of a plugin's files, and with apply deletes exactly those", async () => {
    const ws = workspace();
    const upstream = pluginRepo(ws.work, 'published', 'cc', 'published');
    await ws.manager.install(upstream);
    const owner = ws.places.capabilitiesDir;
    const skill = fs.readFileSync(path.join(upstream, 'skills', 'cc-reading', 'SKILL.md'));
    const affordance = fs.readFileSync(path.join(upstream, 'affordances', 'cc-viewer.md'));
    const server = fs.readFileSync(path.join(upstream, 'servers', 'cc-server.json'));
    const task = fs.readFileSync(path.join(upstream, 'tasks', 'cc-count', 'TASK.md'));
    // Tracked and identical: the owner committed it, so it is theirs.
    gitCommit(owner, { servers: { 'cc-server.json': server } }, 'owner keeps a server');
    fs.mkdirSync(path.join(owner, 'skills', 'cc-reading'), { recursive: true });
    fs.writeFileSync(path.join(owner, 'skills', 'cc-reading', 'SKILL.md'), skill);
    fs.writeFileSync(path.join(owner, 'affordances-copy.md'), affordance); // same bytes, different path
    fs.mkdirSync(path.join(owner, 'affordances'), { recursive: true });
    fs.writeFileSync(path.join(owner, 'affordances', 'cc-viewer.md'), Buffer.concat([affordance, Buffer.from('edited\n')]));
    fs.mkdirSync(path.join(owner, 'tasks', 'cc-count'), { recursive: true });
    fs.writeFileSync(path.join(owner, 'tasks', 'cc-count', 'TASK.md'), task);
    fs.writeFileSync(path.join(owner, '.gitignore'), 'tasks/\n');
    git(owner, 'add', '.gitignore');
    git(owner, 'commit', '-q', '-m', 'ignore tasks');
    fs.mkdirSync(path.join(owner, 'notifications'), { recursive: true });
    fs.symlinkSync(path.join(upstream, 'notifications', 'cc-events.json'), path.join(owner, 'notifications', 'cc-events.json'));

    const dry = await ws.manager.migrate({ apply: false });
    expect(dry).toEqual({ applied: false, files: [{ path: 'skills/cc-reading/SKILL.md', plugin: 'published' }], clones: [] });
    expect(fs.existsSync(path.join(owner, 'skills', 'cc-reading', 'SKILL.md'))).toBe(true);

    const applied = await ws.manager.migrate({ apply: true });
    expect(applied).toEqual({ applied: true, files: [{ path: 'skills/cc-reading/SKILL.md', plugin: 'published' }], clones: [] });
    expect(fs.existsSync(path.join(owner, 'skills', 'cc-reading'))).toBe(false);
    expect(fs.existsSync(path.join(owner, 'skills', 'own-skill', 'SKILL.md'))).toBe(true);
    expect(fs.readFileSync(path.join(owner, 'servers', 'cc-server.json'))).toEqual(server);
    expect(fs.existsSync(path.join(owner, 'affordances-copy.md'))).toBe(true);
    expect(fs.existsSync(path.join(owner, 'affordances', 'cc-viewer.md'))).toBe(true);
    expect(fs.existsSync(path.join(owner, 'tasks', 'cc-count', 'TASK.md'))).toBe(true);
    expect(fs.lstatSync(path.join(owner, 'notifications', 'cc-events.json')).isSymbolicLink()).toBe(true);
    expect(await ws.manager.migrate({ apply: false })).toEqual({ applied: false, files: [], clones: [] });
  });

  it('refuses when the owner folder is not in a git repository', async () => {
    const ws = workspace();
    fs.rmSync(path.join(ws.places.capabilitiesDir, '.git'), { recursive: true });
    await expect(ws.manager.migrate({ apply: true })).rejects.toMatchObject({ code: 'OWNER_REPOSITORY_NOT_GIT' });
  });
});

describe('PluginManager over https with a credential in the URL', () => {
  it('clones and updates with the credential, but never stores, lists or reports it', async () => {
    const work = testdir();
    const repos = path.join(work, 'repos');
    const password = 'S3CRET-TOKEN-4242';
    const server = await startGitHttpsServer(repos, work, { user: 'deploy', password });
    closers.push(() => server.close());
    // The clone keeps no credential, so update finds it where git keeps the user's: a credential helper.
    const store = path.join(work, 'git-credentials');
    fs.writeFileSync(store, `${server.urlWithCredentials('')}\n`, { mode: 0o600 });
    const ws = workspace({ gitConfig: { http: { sslCAInfo: server.caFile }, credential: { helper: `store --file=${store}` } } });
    const upstream = pluginRepo(repos, 'private-plugin.git', 'dd', null);
    fs.rmSync(store);

    await expect(ws.manager.install(server.url('private-plugin.git'))).rejects.toMatchObject({ code: 'PLUGIN_GIT_FAILED' });
    const wrong = server.urlWithCredentials('private-plugin.git').replace(password, `${password}-WRONG`);
    const refusal = (await ws.manager.install(wrong).catch((error: unknown) => error)) as Error;
    expect(refusal).toMatchObject({ code: 'PLUGIN_GIT_FAILED' });
    expect(refusal.message).not.toContain(password);
    expect(server.refusedRequests).toBeGreaterThan(0);

    const entry = await ws.manager.install(server.urlWithCredentials('private-plugin.git'));
    fs.writeFileSync(store, `${server.urlWithCredentials('')}\n`, { mode: 0o600 });
    expect(entry).toMatchObject({ name: 'private-plugin', url: server.url('private-plugin.git'), commit: head(upstream) });
    gitCommit(upstream, { 'README.md': 'v2\n' }, 'v2');
    expect(await ws.manager.update(['private-plugin'])).toEqual([expect.objectContaining({ status: 'updated', to: head(upstream) })]);

    expect(JSON.stringify(ws.manager.list())).not.toContain(password);
    const dataFiles = fs
      .readdirSync(ws.places.dataDir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => fs.readFileSync(path.join(ws.places.dataDir, entry.name)).toString('latin1'));
    expect(dataFiles.join('')).not.toContain(password);
    expect(dataFiles.join('')).toContain('private-plugin');
    const lock = fs.readFileSync(path.join(ws.places.capabilitiesDir, 'loadout-lock.json'), 'utf8');
    expect(lock).toContain(server.url('private-plugin.git'));
    expect(lock).not.toContain(password);
  });
});
