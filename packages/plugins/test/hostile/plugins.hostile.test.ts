import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MarketplaceManager } from '../../src/index.js';
import { PluginGit } from '../../src/PluginGit.js';
import { pluginRepo, stallingGit, startGitHttpsServer } from '../../src/testing/index.js';
import { closeWorkspaces, head, workspace } from '../pluginWorkspace.js';

/** Hostile plugin sources and git faults (issue 11: 17, 18, S9). Kills mid-install and mid-update are in e2e. */

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  closeWorkspaces();
  removeTestdirs();
});

describe('a password in a plugin URL', () => {
  it("17 is used for the clone and kept nowhere: not in the clone's config, which is the owner's alone", async () => {
    const work = testdir();
    const repos = path.join(work, 'repos');
    const password = 'S3CRET-TOKEN-4242';
    const server = await startGitHttpsServer(repos, work, { user: 'deploy', password });
    closers.push(() => server.close());
    const ws = workspace({ gitConfig: { http: { sslCAInfo: server.caFile } } });
    const upstream = pluginRepo(repos, 'private-plugin.git', 'pp', null);

    const entry = await ws.manager.install(server.urlWithCredentials('private-plugin.git'));
    const config = path.join(entry.dir, '.git', 'config');
    expect(fs.readFileSync(config, 'utf8')).not.toContain(password);
    expect(fs.readFileSync(config, 'utf8')).toContain(server.url('private-plugin.git'));
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
    const everything = fs.readdirSync(entry.dir, { recursive: true, encoding: 'utf8' });
    for (const file of everything) {
      const full = path.join(entry.dir, file);
      if (fs.statSync(full).isFile()) expect(fs.readFileSync(full).toString('latin1')).not.toContain(password);
    }

    // Without a credential the user's git keeps, an update is refused by the server, and says so without the password.
    gitCommit(upstream, { 'README.md': 'v2\n' }, 'v2');
    const refused = (await ws.manager.update(['private-plugin']).catch((error: unknown) => error)) as Error;
    expect(refused).toMatchObject({ code: 'PLUGIN_GIT_FAILED' });
    expect(refused.message).not.toContain(password);
    expect(head(entry.dir)).not.toBe(head(upstream));
  });
});

describe("a credential in a plugin URL's query", () => {
  it('18 ?private_token= is redacted in the plugin list, even in a row stored before redaction, and in marketplace hits', async () => {
    const ws = workspace();
    ws.registry.add({
      name: 'old-row',
      url: 'https://gitlab.example.com/team/kit.git?private_token=glpat-OLDSECRET123456',
      ref: null,
      commit: 'a'.repeat(40),
    });
    const listed = JSON.stringify(ws.manager.list());
    expect(listed).not.toContain('OLDSECRET');
    expect(listed).toContain('private_token=[redacted]');

    const market = gitRepo(path.join(ws.work, 'market'), {
      '.claude-plugin': {
        'marketplace.json': JSON.stringify({
          name: 'corp',
          owner: { name: 'Corp' },
          plugins: [
            {
              name: 'kit',
              source: { source: 'url', url: 'https://gitlab.example.com/team/kit.git?private_token=glpat-MARKETSECRET99' },
              description: 'Kit',
            },
            {
              name: 'tarball',
              source: { source: 'archive', url: 'https://files.example.com/kit.zip?access_token=ARCHIVESECRET77' },
              description: 'Archive',
            },
          ],
        }),
      },
      skills: { one: { 'SKILL.md': skillMarkdown({ name: 'one', description: 'One' }) } },
    });
    const marketplaces = resolve(ws.container, MarketplaceManager);
    await marketplaces.add(market);
    const hits = JSON.stringify(marketplaces.search(''));
    expect(hits).toContain('kit@corp');
    expect(hits).not.toContain('MARKETSECRET');
    expect(hits).not.toContain('ARCHIVESECRET');
  });
});

describe('a git that does not answer', () => {
  it('S9 a timeout is a timeout with its cause, not "not a git repository"', async () => {
    const work = testdir();
    const owner = gitRepo(path.join(work, 'owner'), { 'README.md': 'x\n' });
    const bin = stallingGit(path.join(work, 'bin'), { subcommand: 'rev-parse', pidFile: path.join(work, 'git.pid'), seconds: 5 });
    const git = new PluginGit(owner, {
      allowFileProtocol: false,
      env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
      timeoutMs: 300,
    });
    const error = (await git.isInsideWorkTree().catch((caught: unknown) => caught)) as Error;
    expect(error).toMatchObject({ code: 'PLUGIN_GIT_TIMEOUT', message: expect.stringContaining('timed out') });
    expect(error.cause).toBeInstanceOf(Error);
  });
});
