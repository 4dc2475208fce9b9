import fs from 'node:fs';
import path from 'node:path';
import { CLI_ENTRY, runCli } from '@loadout/cli/testing';
import { closeKernel } from '@loadout/kernel';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { git, gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { startServer } from '@loadout/server';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pluginRepo } from '@loadout/plugins/testing';
import { createTestContainer, placesIn, sendRequest, TOKEN } from '../server/support.js';

// Marketplaces, plugin formats and the lock file through the built `loadout` command (and the
// HTTP session), on real git repositories made in temp folders.

beforeAll(() => {
  if (!fs.existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`pnpm build\` before the end-to-end tests`);
});
afterEach(removeTestdirs);

const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill` }) });
const head = (dir: string): string => git(dir, 'rev-parse', 'HEAD').trim();

/** A LOADOUT_HOME whose `capabilities/` is a git repository (or a clone of another machine's). */
function machine(fork?: string) {
  const home = path.join(testdir(), 'home');
  const capabilities = path.join(home, 'capabilities');
  if (fork === undefined) gitRepo(capabilities, { skills: { mine: skill('mine') } });
  else {
    fs.mkdirSync(home, { recursive: true });
    git(home, 'clone', '-q', fork, capabilities);
  }
  const cli = (...args: string[]) => runCli(home, args);
  const json = <T>(...args: string[]): { status: number; doc: T; stderr: string } => {
    const result = runCli(home, [...args, '--json']);
    return { status: result.status, doc: result.json<T>(), stderr: result.stderr };
  };
  return { home, capabilities, cli, json };
}

interface ListedPlugin {
  name: string;
  dir: string;
  root: string;
  installedAt: string;
}
/** `plugins list --json` without what belongs to one machine: its folders and install times. */
const portable = (list: ListedPlugin[]) => list.map(({ dir: _dir, root: _root, installedAt: _at, ...rest }) => rest);

describe('loadout marketplace and plugins install NAME@MARKETPLACE', () => {
  it('finds three kinds of entry in a marketplace and installs each with exactly its skills and servers', async () => {
    const work = testdir();
    const remote = gitRepo(path.join(work, 'remote-kit'), {
      '.codex-plugin': { 'plugin.json': JSON.stringify({ name: 'remote-kit', skills: './skills/' }) },
      skills: { 'remote-a': skill('remote-a') },
    });
    const market = gitRepo(path.join(work, 'acme-market'), {
      '.claude-plugin': {
        'marketplace.json': JSON.stringify({
          name: 'acme',
          owner: { name: 'Acme' },
          plugins: [
            { name: 'pdf-kit', source: './plugins/pdf-kit', description: 'Read and write PDF files', keywords: ['documents'] },
            { name: 'remote-kit', source: { source: 'url', url: `file://${remote}`, ref: 'main' }, description: 'Tools kept elsewhere' },
            {
              name: 'office-skills',
              source: './',
              strict: false,
              skills: ['./skills/xlsx', './skills/docx'],
              description: 'Spreadsheets and letters',
            },
          ],
        }),
      },
      plugins: {
        'pdf-kit': {
          'plugin.json': JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json', name: 'pdf-kit' }),
          skills: { 'pdf-read': skill('pdf-read') },
          'mcp.json': JSON.stringify({
            $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json',
            mcpServers: {
              'pdf-server': {
                type: 'stdio',
                command: './bin/server',
                args: ['--root', '${PLUGIN_ROOT}', '--cache', '${PLUGIN_DATA}/cache'],
                cwd: '${PLUGIN_DATA}',
              },
            },
          }),
          bin: { server: '#!/bin/sh\n' },
        },
      },
      skills: { xlsx: skill('xlsx'), docx: skill('docx'), pptx: skill('pptx') },
    });
    const m = machine();
    const added = m.json<{ name: string; plugins: number }>('marketplace', 'add', market);
    expect(added).toMatchObject({ status: 0, doc: { name: 'acme', plugins: 3 } });
    expect(m.json<{ id: string }[]>('marketplace', 'list').doc).toEqual([expect.objectContaining({ name: 'acme', plugins: 3 })]);
    expect(m.json<{ id: string }[]>('plugins', 'search', 'pdf').doc.map((hit) => hit.id)).toEqual(['pdf-kit@acme']);
    expect(m.json<{ id: string }[]>('plugins', 'search', 'letters').doc.map((hit) => hit.id)).toEqual(['office-skills@acme']);
    expect(m.json<{ id: string }[]>('plugins', 'search').doc.map((hit) => hit.id)).toEqual([
      'pdf-kit@acme',
      'remote-kit@acme',
      'office-skills@acme',
    ]);
    for (const id of ['pdf-kit@acme', 'remote-kit@acme', 'office-skills@acme']) {
      const installed = m.json<{ name: string; format: string }>('plugins', 'install', id);
      expect(installed.status, installed.stderr).toBe(0);
    }
    const refused = m.json<{ error: { code: string } }>('plugins', 'install', 'nothing@acme');
    expect(refused).toMatchObject({ status: 1, doc: { error: { code: 'MARKETPLACE_PLUGIN_NOT_FOUND' } } });

    interface SessionDoc {
      skills: { id: string; plugin: string | null }[];
      servers: { id: string; plugin: string | null; command?: string; args?: string[]; cwd?: string }[];
    }
    const session = m.json<SessionDoc>('session').doc;
    const skillsOf = (plugin: string) => session.skills.filter((k) => k.plugin === plugin).map((k) => k.id);
    expect(skillsOf('pdf-kit')).toEqual(['pdf-read']);
    expect(skillsOf('remote-kit')).toEqual(['remote-a']);
    expect(skillsOf('office-skills')).toEqual(['docx', 'xlsx']);
    // The marketplace's folder entries are folders of one clone of its repository, read in place.
    const listed = m.json<{ name: string; dir: string; root: string }[]>('plugins', 'list').doc;
    const pdfKit = listed.find((p) => p.name === 'pdf-kit');
    expect(listed.find((p) => p.name === 'office-skills')?.dir).toBe(pdfKit?.dir);
    const root = fs.realpathSync(path.join(pdfKit?.dir ?? '', 'plugins', 'pdf-kit'));
    const data = path.join(m.home, '.loadout', 'plugin-data', 'pdf-kit');
    const expected = {
      id: 'pdf-server',
      plugin: 'pdf-kit',
      command: `${root}/bin/server`,
      args: ['--root', root, '--cache', `${data}/cache`],
      cwd: data,
    };
    expect(session.servers).toEqual([expect.objectContaining(expected)]);
    expect(m.json<{ id: string }[]>('servers', 'list').doc).toContainEqual(expect.objectContaining(expected));

    // The HTTP session lists the server exactly as the command line does.
    const container = createTestContainer(placesIn(m.home), false);
    const server = await startServer(container, { port: 0, token: TOKEN, log: () => undefined });
    try {
      const answer = await sendRequest(server.port, 'GET', '/api/session');
      expect(answer.status).toBe(200);
      expect((answer.body as SessionDoc).servers).toEqual([expect.objectContaining(expected)]);
      const marketplaces = await sendRequest(server.port, 'GET', '/api/marketplaces');
      expect(marketplaces.body).toEqual([expect.objectContaining({ name: 'acme' })]);
    } finally {
      await server.close();
      closeKernel(container);
    }

    // An agent reading the server over MCP (`loadout mcp`, the official client) gets the same definition, values redacted.
    const client = new Client({ name: 'plugin-sources-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI_ENTRY, 'mcp'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: m.home, LOADOUT_HOME: m.home },
        stderr: 'ignore',
      }),
    );
    try {
      const read = await client.readResource({ uri: 'loadout://servers/pdf-server' });
      const served = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
      expect(served).toMatchObject({
        id: 'pdf-server',
        transport: 'stdio',
        command: `${root}/bin/server`,
        args: expected.args,
        env: { PLUGIN_ROOT: '[redacted]', PLUGIN_DATA: '[redacted]' },
      });
    } finally {
      await client.close();
    }
  });
});

describe('capabilities/loadout-lock.json through the command line', () => {
  it('restores the same plugins on a second machine, and --frozen refuses (changing nothing) once the lock moves', () => {
    const work = testdir();
    const alpha = gitRepo(path.join(work, 'alpha'), {
      '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'alpha' }) },
      skills: { 'alpha-skill': skill('alpha-skill') },
    });
    const beta = gitRepo(path.join(work, 'beta'), { skills: { 'beta-skill': skill('beta-skill') } });
    const a = machine();
    expect(a.cli('plugins', 'install', alpha).status).toBe(0);
    expect(a.cli('plugins', 'install', beta).status).toBe(0);
    gitCommit(alpha, { skills: { 'alpha-two': skill('alpha-two') } }, 'v2');
    expect(a.json<{ status: string }[]>('plugins', 'update', 'alpha').doc).toEqual([
      expect.objectContaining({ status: 'updated', to: head(alpha) }),
    ]);
    expect(a.cli('plugins', 'disable', 'beta').status).toBe(0);
    git(a.capabilities, 'add', 'loadout-lock.json');
    git(a.capabilities, 'commit', '-q', '-m', 'plugins');

    const b = machine(a.capabilities);
    const synced = b.json<{ changes: { name: string; action: string }[] }>('plugins', 'sync');
    expect(synced.status, synced.stderr).toBe(0);
    expect(synced.doc.changes.map((c) => `${c.name} ${c.action}`)).toEqual(['alpha install', 'beta install']);
    expect(portable(b.json<ListedPlugin[]>('plugins', 'list').doc)).toEqual(portable(a.json<ListedPlugin[]>('plugins', 'list').doc));
    expect(
      b
        .json<{ skills: { id: string; plugin: string | null }[] }>('session')
        .doc.skills.filter((k) => k.plugin !== null)
        .map((k) => k.id),
    ).toEqual(['alpha-skill', 'alpha-two']);
    expect(b.json('plugins', 'sync', '--frozen')).toMatchObject({ status: 0, doc: { changes: [] } });

    gitCommit(alpha, { 'README.md': 'v3' }, 'v3');
    // Something to update is exit 1, like `npm outdated`; the list is printed all the same.
    const outdated = b.json<{ name: string }[]>('plugins', 'outdated');
    expect(outdated).toMatchObject({ status: 1, stderr: expect.stringMatching(/1 plugin is outdated/) });
    expect(outdated.doc).toEqual([expect.objectContaining({ name: 'alpha', upstream: head(alpha), behind: 1, files: 1 })]);
    expect(a.cli('plugins', 'update', 'alpha').status).toBe(0);
    git(a.capabilities, 'commit', '-q', '-am', 'alpha v3');
    git(b.capabilities, 'pull', '-q', '--ff-only');
    const before = { list: b.json<ListedPlugin[]>('plugins', 'list').doc, alpha: head(path.join(b.home, 'plugins', 'alpha')) };
    const frozen = b.json<{ error: { code: string; message: string } }>('plugins', 'sync', '--frozen');
    expect(frozen).toMatchObject({
      status: 1,
      doc: { error: { code: 'PLUGINS_OUT_OF_SYNC', message: expect.stringMatching(/alpha: would move/) } },
    });
    expect(frozen.stderr).toMatch(/^loadout: plugins\/ does not match/);
    expect({ list: b.json<ListedPlugin[]>('plugins', 'list').doc, alpha: head(path.join(b.home, 'plugins', 'alpha')) }).toEqual(before);
    expect(b.cli('plugins', 'sync').status).toBe(0);
    expect(portable(b.json<ListedPlugin[]>('plugins', 'list').doc)).toEqual(portable(a.json<ListedPlugin[]>('plugins', 'list').doc));
    expect(b.json('plugins', 'outdated')).toMatchObject({ status: 0, doc: [] });
    expect(git(b.capabilities, 'status', '--porcelain')).toBe('');
  });
  it('sync ends with what stays held on this machine and the command that frees each', () => {
    const work = testdir();
    const runner = pluginRepo(work, 'runner', 'run', 'runner');
    const a = machine();
    // Approved on the first machine: approvals are that machine's own and do not travel with the lock.
    expect(a.cli('plugins', 'install', runner, '--yes').status).toBe(0);
    git(a.capabilities, 'add', 'loadout-lock.json');
    git(a.capabilities, 'commit', '-q', '-m', 'plugins');
    const b = machine(a.capabilities);
    const synced = b.cli('plugins', 'sync');
    expect(synced.status, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(
      /held on this machine until approved \(1 plugin\):\n {2}runner: (server|task)\/\S+, (server|task)\/\S+; free with: loadout plugins approve runner\n$/,
    );
    expect(b.json<{ held: unknown[] }>('plugins', 'sync').doc.held).toEqual([
      {
        plugin: 'runner',
        capabilities: expect.arrayContaining([expect.stringMatching(/^task\//), expect.stringMatching(/^server\//)]),
        free: 'loadout plugins approve runner',
      },
    ]);
    expect(b.cli('plugins', 'approve', 'runner').status).toBe(0);
    expect(b.cli('plugins', 'sync').stdout).toMatch(/nothing is held on this machine\n$/);
  });
});
