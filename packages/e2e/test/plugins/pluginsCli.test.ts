import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI_ENTRY } from '@loadout/cli/testing';
import { git, gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agentsMarketplaceRepo,
  gitHome,
  pluginRepo,
  type SessionJson,
  skillCollectionsRepo,
  startGitHttpsServer,
} from '@loadout/plugins/testing';
import { TestServer } from '../server/support.js';

const CLI = CLI_ENTRY;
const run = promisify(execFile);
const closers: (() => Promise<void>)[] = [];

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` before the end-to-end tests`);
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  removeTestdirs();
});

interface CliResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A temporary LOADOUT_HOME whose `capabilities/` is its own git repository, and a way to run the CLI in it. */
function home(gitConfig: Record<string, Record<string, string>> = { user: { name: 'Someone' } }) {
  const work = testdir();
  const loadoutHome = path.join(work, 'home');
  const capabilities = gitRepo(path.join(loadoutHome, 'capabilities'), {
    skills: { 'own-skill': { 'SKILL.md': skillMarkdown({ name: 'own-skill', description: "The owner's skill" }) } },
  });
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: gitHome(path.join(work, 'git-home'), gitConfig),
    LOADOUT_HOME: loadoutHome,
    LOADOUT_CAPABILITIES_DIR: '',
    LOADOUT_DATA_DIR: '',
  };
  const cli = async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { cwd: work, env, encoding: 'utf8' });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  /** Runs with `--json` and returns the one JSON document stdout must hold. */
  const json = async <T = Record<string, unknown>>(...args: string[]): Promise<{ status: number; doc: T; stderr: string }> => {
    const dashDash = args.indexOf('--');
    const withJson = dashDash === -1 ? [...args, '--json'] : [...args.slice(0, dashDash), '--json', ...args.slice(dashDash)];
    const result = await cli(...withJson);
    return { status: result.status, doc: oneJsonDocument(result.stdout, result.stderr) as T, stderr: result.stderr };
  };
  /** `git status` of the owner's repository, less the lock file, which is meant to change there (and travel with it). */
  const ownerStatus = (): string =>
    git(capabilities, 'status', '--porcelain')
      .split('\n')
      .filter((line) => line !== '?? loadout-lock.json' && line !== ' M loadout-lock.json')
      .map((line) => (line === '' ? '' : `${line}\n`))
      .join('');
  const pluginsDir = path.join(loadoutHome, 'plugins');
  const pluginFolders = (): string[] => (fs.existsSync(pluginsDir) ? fs.readdirSync(pluginsDir).sort() : []);
  return { work, loadoutHome, capabilities, pluginsDir, cli, json, ownerStatus, pluginFolders };
}

/** Parses stdout, failing unless it is exactly one JSON document. */
function oneJsonDocument(stdout: string, stderr = ''): unknown {
  expect(stdout.trim(), `stdout is empty; stderr: ${stderr}`).not.toBe('');
  return JSON.parse(stdout);
}

const fromPlugin = (s: SessionJson, plugin: string) =>
  [...s.skills, ...s.affordances, ...s.notifications, ...s.servers, ...s.tasks].filter((r) => r.plugin === plugin);

describe('loadout plugins, end to end', () => {
  it('installs, updates, disables, enables and uninstalls a plugin; the owner repository stays clean throughout', async () => {
    const h = home();
    const upstream = pluginRepo(h.work, 'pdf-plugin', 'pdf', 'pdf-tools');

    const installed = await h.json<{ name: string; commit: string; dir: string }>('plugins', 'install', upstream);
    expect(installed.status).toBe(0);
    expect(installed.doc).toMatchObject({ name: 'pdf-tools', commit: git(upstream, 'rev-parse', 'HEAD').trim(), enabled: true });
    expect(h.ownerStatus()).toBe('');
    let session = (await h.json<SessionJson>('session')).doc;
    expect(session.skills).toContainEqual(expect.objectContaining({ id: 'pdf-reading', plugin: 'pdf-tools' }));
    expect(session.affordances).toContainEqual(expect.objectContaining({ id: 'pdf-viewer', plugin: 'pdf-tools' }));
    expect(session.notifications).toContainEqual(expect.objectContaining({ id: 'pdf-events', plugin: 'pdf-tools' }));
    expect(session.servers).toContainEqual(expect.objectContaining({ id: 'pdf-server', plugin: 'pdf-tools' }));
    expect(session.tasks).toContainEqual(expect.objectContaining({ dirName: 'pdf-count', plugin: 'pdf-tools' }));
    expect(session.skills).toContainEqual(expect.objectContaining({ id: 'own-skill', plugin: null }));

    gitCommit(
      upstream,
      { skills: { 'pdf-reading': { 'SKILL.md': skillMarkdown({ name: 'pdf-reading', description: 'Read PDFs, now with tables' }) } } },
      'v2',
    );
    const updated = await h.json<{ name: string; status: string }[]>('plugins', 'update');
    expect(updated.doc).toEqual([
      expect.objectContaining({ name: 'pdf-tools', status: 'updated', to: git(upstream, 'rev-parse', 'HEAD').trim() }),
    ]);
    expect(h.ownerStatus()).toBe('');
    session = (await h.json<SessionJson>('session')).doc;
    expect(session.skills).toContainEqual(expect.objectContaining({ id: 'pdf-reading', description: 'Read PDFs, now with tables' }));
    expect(session.skillsBlock).toContain('now with tables');

    expect((await h.json('plugins', 'disable', 'pdf-tools')).doc).toMatchObject({ name: 'pdf-tools', enabled: false });
    expect(h.ownerStatus()).toBe('');
    session = (await h.json<SessionJson>('session')).doc;
    expect(fromPlugin(session, 'pdf-tools')).toEqual([]);
    expect(session.roots.map((r) => r.plugin)).toEqual([null]);
    expect(session.skillsBlock).not.toContain('pdf-reading');
    expect(session.affordanceBlock).not.toContain('pdf-viewer');

    expect((await h.json('plugins', 'enable', 'pdf-tools')).doc).toMatchObject({ enabled: true });
    expect(h.ownerStatus()).toBe('');
    session = (await h.json<SessionJson>('session')).doc;
    expect(fromPlugin(session, 'pdf-tools')).toHaveLength(5);
    expect(session.skillsBlock).toContain('pdf-reading');
    expect(session.affordanceBlock).toContain('pdf-viewer');

    expect((await h.json('plugins', 'uninstall', 'pdf-tools')).doc).toMatchObject({ name: 'pdf-tools', warnings: [] });
    expect(h.ownerStatus()).toBe('');
    expect(fs.existsSync(installed.doc.dir)).toBe(false);
    expect(h.pluginFolders()).toEqual([]);
    expect((await h.json('plugins', 'list')).doc).toEqual([]);
    session = (await h.json<SessionJson>('session')).doc;
    expect(fromPlugin(session, 'pdf-tools')).toEqual([]);
  });

  it('prints exactly one JSON document for every plugins command, refusals included', async () => {
    const h = home();
    const upstream = pluginRepo(h.work, 'json-plugin', 'js', 'json-plugin');
    const calls: [string[], number][] = [
      [['plugins', 'install', upstream], 0],
      [['plugins', 'list'], 0],
      [['plugins', 'update'], 0],
      [['plugins', 'update', 'json-plugin'], 0],
      [['plugins', 'disable', 'json-plugin'], 0],
      [['plugins', 'enable', 'json-plugin'], 0],
      [['plugins', 'migrate'], 0],
      [['plugins', 'migrate', '--apply'], 0],
      [['plugins', 'uninstall', 'json-plugin'], 0],
      [['plugins', 'enable', 'json-plugin'], 1],
      [['plugins', 'update', 'nope'], 1],
      [['plugins', 'install', upstream, '--name', 'Bad..Name'], 1],
      [['plugins', 'install'], 2],
    ];
    for (const [args, status] of calls) {
      const result = await h.json(...args);
      expect({ args, status: result.status }).toEqual({ args, status });
      if (status !== 0) {
        expect(result.doc).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
    }
    const notFound = await h.json('plugins', 'uninstall', 'missing');
    expect(notFound).toMatchObject({ status: 1, doc: { error: { code: 'PLUGIN_NOT_FOUND' } } });
  });

  it('refuses hostile URLs, names and refs before git starts: nothing runs and nothing installed changes', async () => {
    const h = home();
    const kept = pluginRepo(h.work, 'kept', 'kept', 'kept');
    await h.json('plugins', 'install', kept);
    const before = {
      list: (await h.json('plugins', 'list')).doc,
      folders: h.pluginFolders(),
      head: git(path.join(h.pluginsDir, 'kept'), 'rev-parse', 'HEAD'),
    };
    const marker = path.join(h.work, 'pwned');
    const target = pluginRepo(h.work, 'target', 'tg', 'target');
    const hostile: [string[], string][] = [
      [['plugins', 'install', '--', `ext::sh -c touch% ${marker}`], 'PLUGIN_URL_REFUSED'],
      [['plugins', 'install', '--', 'ext::sh'], 'PLUGIN_URL_REFUSED'],
      [['plugins', 'install', '--', `--upload-pack=touch ${marker}`], 'PLUGIN_URL_REFUSED'],
      [['plugins', 'install', '--', `--upload-pack=touch`], 'PLUGIN_URL_REFUSED'],
      [['plugins', 'install', '--', `-oProxyCommand=touch ${marker}`], 'PLUGIN_URL_REFUSED'],
      [['plugins', 'install', '--', `ssh://-oProxyCommand=touch/${marker}`], 'PLUGIN_URL_REFUSED'],
      [['plugins', 'install', target, '--name', '..'], 'PLUGIN_NAME_INVALID'],
      [['plugins', 'install', target, '--name', '../../escape'], 'PLUGIN_NAME_INVALID'],
      [['plugins', 'install', target, '--name', 'UPPER'], 'PLUGIN_NAME_INVALID'],
      [['plugins', 'install', target, '--name', 'x'.repeat(65)], 'PLUGIN_NAME_INVALID'],
      [['plugins', 'install', target, '--ref=--upload-pack=touch'], 'PLUGIN_REF_INVALID'],
      [['plugins', 'install', target, '--ref=-c'], 'PLUGIN_REF_INVALID'],
    ];
    for (const [args, code] of hostile) {
      const result = await h.json(...args);
      expect({ args, status: result.status, code: (result.doc as { error?: { code: string } }).error?.code }).toEqual({
        args,
        status: 1,
        code,
      });
      expect(result.stderr).toMatch(/^loadout: .+\n$/);
    }
    // Commander refuses an option-looking argument without `--` as bad usage.
    expect((await h.cli('plugins', 'install', '--upload-pack=touch', '--json')).status).toBe(2);
    expect(fs.existsSync(marker)).toBe(false);
    expect((await h.json('plugins', 'list')).doc).toEqual(before.list);
    expect(h.pluginFolders()).toEqual(before.folders);
    expect(git(path.join(h.pluginsDir, 'kept'), 'rev-parse', 'HEAD')).toBe(before.head);
  });

  it('runs no hook from a hostile repository and refuses a repository with a submodule', async () => {
    const work = testdir();
    const marker = path.join(work, 'hook-ran');
    const hooks = path.join(work, 'hooks');
    fs.mkdirSync(hooks);
    fs.writeFileSync(path.join(hooks, 'post-checkout'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const h = home({ core: { hooksPath: hooks } });
    const hooked = pluginRepo(h.work, 'hooked', 'hk', 'hooked');
    fs.copyFileSync(path.join(hooks, 'post-checkout'), path.join(hooked, '.git', 'hooks', 'post-checkout'));
    fs.chmodSync(path.join(hooked, '.git', 'hooks', 'post-checkout'), 0o755);
    expect((await h.json('plugins', 'install', hooked)).status).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);

    const library = pluginRepo(h.work, 'library', 'lib', 'library');
    const withSubmodule = pluginRepo(h.work, 'with-submodule', 'ws', 'with-submodule');
    git(withSubmodule, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'vendor/library');
    gitCommit(withSubmodule, {}, 'submodule');
    const refused = await h.json('plugins', 'install', withSubmodule);
    expect(refused).toMatchObject({ status: 1, doc: { error: { code: 'PLUGIN_HAS_SUBMODULES' } } });
    expect(h.pluginFolders()).toEqual(['hooked']);
    expect(h.ownerStatus()).toBe('');
  });

  it('does not read a skill that links outside the plugin; the good ones beside it load', async () => {
    const h = home();
    const secret = path.join(h.work, 'secret.md');
    fs.writeFileSync(secret, skillMarkdown({ name: 'secret', description: 'TOP-SECRET-VALUE' }));
    const upstream = pluginRepo(h.work, 'linky', 'ln', 'linky');
    fs.symlinkSync(secret, path.join(upstream, 'skills', 'stolen.md'));
    gitCommit(upstream, {}, 'link out');
    expect((await h.json('plugins', 'install', upstream)).status).toBe(0);
    const result = await h.cli('session', '--json');
    expect(result.stdout).not.toContain('TOP-SECRET-VALUE');
    const session = oneJsonDocument(result.stdout, result.stderr) as SessionJson;
    expect(session.skills).toContainEqual(expect.objectContaining({ id: 'ln-reading', plugin: 'linky' }));
    expect(session.diagnostics).toContainEqual(expect.objectContaining({ code: 'PATH_OUTSIDE_ROOT' }));
  });

  it('never prints or stores a credential given in the URL', async () => {
    const work = testdir();
    const password = 'S3CRET-CLI-TOKEN-77';
    const server = await startGitHttpsServer(path.join(work, 'repos'), work, { user: 'deploy', password });
    closers.push(() => server.close());
    // The clone keeps no credential: update finds it where git keeps the user's, a credential helper.
    const store = path.join(work, 'git-credentials');
    const h = home({ http: { sslCAInfo: server.caFile }, credential: { helper: `store --file=${store}` } });
    const upstream = pluginRepo(path.join(work, 'repos'), 'secret-plugin.git', 'sp', null);
    const url = server.urlWithCredentials('secret-plugin.git');

    const outputs: string[] = [];
    const wrong = await h.cli('plugins', 'install', url.replace(password, `${password}x`), '--json');
    outputs.push(wrong.stdout, wrong.stderr);
    expect(wrong.status).toBe(1);
    const human = await h.cli('plugins', 'install', url);
    outputs.push(human.stdout, human.stderr);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain(server.url('secret-plugin.git'));
    gitCommit(upstream, { 'README.md': 'v2\n' }, 'v2');
    fs.writeFileSync(store, `${server.urlWithCredentials('')}\n`, { mode: 0o600 });
    for (const args of [
      ['plugins', 'list'],
      ['plugins', 'list', '--json'],
      ['plugins', 'update', '--json'],
      ['session', '--json'],
      ['plugins', 'install', url, '--json'],
    ]) {
      const result = await h.cli(...args);
      outputs.push(result.stdout, result.stderr);
    }
    expect(outputs.join('\n')).not.toContain(password);
    expect(outputs.join('\n')).toContain('"status": "updated"');
    const dataDir = path.join(h.loadoutHome, '.loadout');
    const stored = fs
      .readdirSync(dataDir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => fs.readFileSync(path.join(dataDir, entry.name)).toString('latin1'))
      .join('');
    expect(fs.readFileSync(path.join(h.capabilities, 'loadout-lock.json'), 'utf8')).not.toContain(password);
    expect(stored).toContain('secret-plugin');
    expect(stored).not.toContain(password);
  });

  it("migrate lists, and with --apply deletes, only untracked copies of a plugin's files", async () => {
    const h = home();
    const upstream = pluginRepo(h.work, 'publisher', 'pb', 'publisher');
    await h.json('plugins', 'install', upstream);
    fs.cpSync(path.join(upstream, 'skills', 'pb-reading'), path.join(h.capabilities, 'skills', 'pb-reading'), { recursive: true });
    fs.writeFileSync(path.join(h.capabilities, 'skills', 'own-skill', 'notes.md'), 'mine\n');
    expect((await h.json('plugins', 'migrate')).doc).toEqual({
      applied: false,
      files: [{ path: 'skills/pb-reading/SKILL.md', plugin: 'publisher' }],
      clones: [],
    });
    expect((await h.json('plugins', 'migrate', '--apply')).doc).toMatchObject({
      applied: true,
      files: [{ path: 'skills/pb-reading/SKILL.md' }],
    });
    expect(h.ownerStatus()).toBe('?? skills/own-skill/notes.md\n');
  });
});

describe('an install says what happened (issue 30)', () => {
  it('prints what it loaded, held parts marked, and the same in --json', async () => {
    const h = home();
    const upstream = pluginRepo(h.work, 'pdf-plugin', 'pdf', 'pdf-tools');
    const printed = await h.cli('plugins', 'install', upstream);
    expect(printed.status).toBe(0);
    expect(printed.stdout).toContain('  loaded: 1 skill, 1 affordance, 1 notification, 1 server (held), 1 task (held)\n');
    await h.cli('plugins', 'uninstall', 'pdf-tools');
    const approved = await h.json<{ summary: string; loaded: { kind: string; held: number }[] }>('plugins', 'install', upstream, '--yes');
    expect(approved.doc.summary).toBe('1 skill, 1 affordance, 1 notification, 1 server, 1 task');
  });

  it('refuses an install that loads nothing with the fix first, exit 1, nothing left; --allow-empty installs it', async () => {
    const h = home();
    const agents = agentsMarketplaceRepo(path.join(h.work, 'agents'), ['python', 'golang']);
    const refused = await h.cli('plugins', 'install', agents);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^loadout: this is a marketplace: `loadout marketplace add file:\/\/\S+agents`, then/);
    expect(h.pluginFolders()).toEqual([]);
    expect((await h.json('plugins', 'list')).doc).toEqual([]);
    expect(git(h.capabilities, 'status', '--porcelain')).toBe('');

    const skills = skillCollectionsRepo(path.join(h.work, 'skills'), { '.curated': ['notion', 'playwright'], '.experimental': ['linear'] });
    const collection = await h.json<{ error: { code: string; message: string } }>('plugins', 'install', skills);
    expect(collection.status).toBe(1);
    expect(collection.doc.error.code).toBe('PLUGIN_IS_A_COLLECTION');
    expect(collection.doc.error.message).toMatch(
      /^install a collection of it: `loadout plugins install \S+ --path skills\/\.curated` \(2 skills\)/,
    );
    expect(h.pluginFolders()).toEqual([]);

    const empty = await h.json<{ name: string; summary: string }>('plugins', 'install', skills, '--allow-empty');
    expect(empty.status).toBe(0);
    expect(empty.doc).toMatchObject({ name: 'skills', summary: 'nothing' });
  });

  it('--list shows collections and marketplace plugins without installing; --path installs a collection', async () => {
    const h = home();
    const skills = skillCollectionsRepo(path.join(h.work, 'skills'), { '.curated': ['notion', 'playwright'], '.experimental': ['linear'] });
    const listed = await h.cli('plugins', 'install', skills, '--list');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('  as one plugin it loads: nothing\n');
    expect(listed.stdout).toContain('    skills/.curated  2 skills: notion, playwright\n');
    expect(listed.stdout).toContain('    skills/.experimental  1 skill: linear');
    expect(h.pluginFolders()).toEqual([]);
    const agents = agentsMarketplaceRepo(path.join(h.work, 'agents'), ['python']);
    const market = await h.json<{ marketplace: { plugins: { name: string; path: string }[] } }>('plugins', 'install', agents, '--list');
    expect(market.doc.marketplace.plugins).toEqual([{ name: 'python', description: 'The python plugin', path: 'plugins/python' }]);
    expect(h.pluginFolders()).toEqual([]);

    const curated = await h.cli('plugins', 'install', skills, '--path', 'skills/.curated', '--name', 'curated');
    expect(curated.status).toBe(0);
    expect(curated.stdout).toContain('  loaded: 2 skills\n');
    const session = (await h.json<SessionJson>('session')).doc;
    expect(session.skills.filter((skill) => skill.plugin === 'curated').map((skill) => skill.id)).toEqual(['notion', 'playwright']);
  });

  it('POST /api/plugins answers what it loaded, refuses an empty install with 400 and its code, and takes allowEmpty', async () => {
    const s = await TestServer.start();
    closers.push(() => s.close());
    const work = testdir();
    const skills = skillCollectionsRepo(path.join(work, 'skills'), { '.curated': ['notion'] });
    const refused = await s.request('POST', '/api/plugins', { body: { url: skills } });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'PLUGIN_IS_A_COLLECTION' } } });
    expect(fs.readdirSync(s.places.pluginsDir)).toEqual([]);
    expect((await s.request('GET', '/api/plugins')).body).toEqual([]);
    const allowed = await s.request('POST', '/api/plugins', { body: { url: skills, allowEmpty: true, name: 'empty-one' } });
    expect(allowed).toMatchObject({ status: 201, body: { name: 'empty-one', summary: 'nothing', loaded: [] } });
    const upstream = pluginRepo(work, 'pdf-plugin', 'pdf', 'pdf-tools');
    const installed = await s.request('POST', '/api/plugins', { body: { url: upstream } });
    expect(installed).toMatchObject({
      status: 201,
      body: { name: 'pdf-tools', summary: '1 skill, 1 affordance, 1 notification, 1 server (held), 1 task (held)' },
    });
  });
});
