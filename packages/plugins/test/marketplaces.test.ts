import fs from 'node:fs';
import path from 'node:path';
import { resolve } from '@loadout/kernel';
import { git, gitCommit, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MarketplaceManager } from '../src/index.js';
import { closeWorkspaces, head, pluginFolders, session, type Workspace, withSession, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

const skill = (name: string) => ({ 'SKILL.md': skillMarkdown({ name, description: `The ${name} skill` }) });
const marketplaces = (ws: Workspace): MarketplaceManager => resolve(ws.container, MarketplaceManager);

/**
 * A marketplace repository listing three plugins: one in a folder of its own repository, one in
 * another git repository held at a commit, and one whose entry is its whole definition (a list of
 * the repository's root skills). Plus one entry Loadout cannot install.
 */
function acmeMarketplace(ws: Workspace) {
  const remote = gitRepo(path.join(ws.work, 'remote-kit'), {
    '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'remote-kit' }) },
    skills: { 'remote-a': skill('remote-a') },
  });
  const pinned = head(remote);
  gitCommit(remote, { skills: { 'remote-later': skill('remote-later') } }, 'after the pinned commit');
  const market = gitRepo(path.join(ws.work, 'acme-market'), {
    '.claude-plugin': {
      'marketplace.json': JSON.stringify({
        name: 'acme',
        owner: { name: 'Acme' },
        metadata: { description: 'Acme plugins' },
        plugins: [
          { name: 'pdf-kit', source: './plugins/pdf-kit', description: 'Read and write PDF files', keywords: ['documents'] },
          {
            name: 'remote-kit',
            source: { source: 'url', url: `file://${remote}`, sha: pinned },
            description: 'Tools kept elsewhere',
            category: 'remote',
          },
          {
            name: 'office-skills',
            source: './',
            strict: false,
            skills: ['./skills/xlsx', './skills/docx'],
            description: 'Spreadsheets and letters',
          },
          { name: 'npm-kit', source: { source: 'npm', package: '@acme/kit' }, description: 'Published on npm' },
        ],
      }),
    },
    plugins: {
      'pdf-kit': {
        '.claude-plugin': { 'plugin.json': JSON.stringify({ name: 'pdf-kit', description: 'PDF' }) },
        skills: { 'pdf-read': skill('pdf-read'), 'pdf-write': skill('pdf-write') },
        '.mcp.json': JSON.stringify({
          'pdf-server': { command: '${CLAUDE_PLUGIN_ROOT}/bin/server', args: ['--data', '${CLAUDE_PLUGIN_DATA}'] },
        }),
        commands: { 'render.md': '# render' },
      },
    },
    skills: { xlsx: skill('xlsx'), docx: skill('docx'), pptx: skill('pptx') },
    tasks: {
      'market-task': {
        'TASK.md': '---\nname: market-task\ndescription: not part of any plugin\nimplementation: run.sh\n---\n',
        'run.sh': 'true\n',
      },
    },
  });
  return { remote, pinned, market };
}

describe('marketplaces', () => {
  it('adds a marketplace, searches it, and installs each kind of entry with exactly its skills', async () => {
    const ws = workspace();
    const { market, pinned, remote } = acmeMarketplace(ws);
    const added = await marketplaces(ws).add(market);
    expect(added).toMatchObject({ name: 'acme', format: 'claude-code', plugins: 4, commit: head(market), description: 'Acme plugins' });
    expect(fs.existsSync(path.join(ws.places.dataDir, 'marketplaces', 'acme', '.claude-plugin', 'marketplace.json'))).toBe(true);

    expect(
      marketplaces(ws)
        .search('')
        .map((hit) => hit.id),
    ).toEqual(['pdf-kit@acme', 'remote-kit@acme', 'office-skills@acme', 'npm-kit@acme']);
    expect(
      marketplaces(ws)
        .search('pdf')
        .map((hit) => hit.id),
    ).toEqual(['pdf-kit@acme']);
    expect(
      marketplaces(ws)
        .search('DOCUMENTS')
        .map((hit) => hit.id),
    ).toEqual(['pdf-kit@acme']);
    expect(
      marketplaces(ws)
        .search('remote')
        .map((hit) => hit.id),
    ).toEqual(['remote-kit@acme']);
    expect(
      marketplaces(ws)
        .search('spreadsheets letters')
        .map((hit) => hit.id),
    ).toEqual(['office-skills@acme']);
    expect(marketplaces(ws).search('npm')[0]).toMatchObject({ installable: false, reason: expect.stringMatching(/source kind "npm"/) });

    const pdf = await marketplaces(ws).install('pdf-kit@acme');
    expect(pdf).toMatchObject({
      name: 'pdf-kit',
      path: 'plugins/pdf-kit',
      commit: head(market),
      pinned: false,
      marketplace: { name: 'acme', plugin: 'pdf-kit' },
    });
    const remoteKit = await marketplaces(ws).install('remote-kit@acme');
    expect(remoteKit).toMatchObject({ name: 'remote-kit', commit: pinned, pinned: true, url: `file://${remote}` });
    const office = await marketplaces(ws).install('office-skills@acme');
    expect(office).toMatchObject({
      name: 'office-skills',
      path: '',
      definition: { strict: false, skills: ['./skills/xlsx', './skills/docx'] },
    });
    await expect(marketplaces(ws).install('npm-kit@acme')).rejects.toMatchObject({ code: 'MARKETPLACE_SOURCE_UNSUPPORTED' });
    expect(marketplaces(ws).search('pdf')[0]?.installed).toBe('pdf-kit');

    const s = await session(ws);
    const skillsOf = (plugin: string) => s.skills.filter((k) => k.plugin === plugin).map((k) => k.id);
    expect(skillsOf('pdf-kit')).toEqual(['pdf-read', 'pdf-write']);
    expect(skillsOf('remote-kit')).toEqual(['remote-a']);
    expect(skillsOf('office-skills')).toEqual(['docx', 'xlsx']);
    // An entry that is its plugin's whole definition brings nothing else of the repository.
    expect(s.tasks.filter((t) => t.plugin !== null)).toEqual([]);
    // The two folder entries of the marketplace's repository are folders of one clone of it.
    expect(office.dir).toBe(pdf.dir);
    expect(pluginFolders(ws)).toEqual([path.basename(pdf.dir), path.basename(remoteKit.dir)].sort());
    const root = fs.realpathSync(path.join(pdf.dir, 'plugins', 'pdf-kit'));
    const data = path.join(ws.places.dataDir, 'plugin-data', 'pdf-kit');
    expect(s.servers).toEqual([
      expect.objectContaining({ id: 'pdf-server', plugin: 'pdf-kit', command: `${root}/bin/server`, args: ['--data', data], cwd: root }),
    ]);
    const env = await withSession(ws, (opened) => {
      const sources = opened.roots.find((r) => r.plugin === 'pdf-kit')?.layout?.kinds.servers ?? [];
      return sources.flatMap((source) => ('document' in source ? [(source.document.content as { env: unknown }).env] : []));
    });
    expect(env).toEqual([{ CLAUDE_PLUGIN_ROOT: root, CLAUDE_PLUGIN_DATA: data }]);
    // Its commands are read where its runtime reads them; the whole-definition entry brings none.
    expect(s.commands.map((command) => [command.id, command.plugin])).toEqual([['render', 'pdf-kit']]);
    expect(s.diagnostics.filter((d) => d.code === 'PLUGIN_PARTS_NOT_LOADED')).toEqual([]);
    // Nothing was copied into the owner's repository; only the lock file changed there.
    expect(git(ws.places.capabilitiesDir, 'status', '--porcelain')).toBe('?? loadout-lock.json\n');
  });

  it('follows its upstream on update; removing it leaves the plugins installed from it', async () => {
    const ws = workspace();
    const { market } = acmeMarketplace(ws);
    await marketplaces(ws).add(market, { name: 'mine' });
    await marketplaces(ws).install('pdf-kit@mine');
    gitCommit(market, { plugins: { 'pdf-kit': { skills: { 'pdf-merge': skill('pdf-merge') } } } }, 'a new skill');
    expect(await marketplaces(ws).update(['mine'])).toEqual([
      expect.objectContaining({ name: 'mine', status: 'updated', to: head(market) }),
    ]);
    expect(marketplaces(ws).list()).toEqual([expect.objectContaining({ name: 'mine', commit: head(market) })]);
    // The plugin is its own clone: it moves with `plugins update`, not with the marketplace.
    expect((await session(ws)).skills.filter((k) => k.plugin === 'pdf-kit').map((k) => k.id)).toEqual(['pdf-read', 'pdf-write']);
    await ws.manager.update(['pdf-kit']);
    expect((await session(ws)).skills.filter((k) => k.plugin === 'pdf-kit').map((k) => k.id)).toEqual([
      'pdf-merge',
      'pdf-read',
      'pdf-write',
    ]);
    expect(marketplaces(ws).remove('mine')).toMatchObject({ name: 'mine' });
    expect(marketplaces(ws).list()).toEqual([]);
    expect(ws.manager.list().map((p) => p.name)).toEqual(['pdf-kit']);
    await expect(marketplaces(ws).install('pdf-kit@mine')).rejects.toMatchObject({ code: 'MARKETPLACE_NOT_FOUND' });
  });

  it('refuses a repository that is not a marketplace, a name taken, and an unknown entry, changing nothing', async () => {
    const ws = workspace();
    const { market } = acmeMarketplace(ws);
    const plain = gitRepo(path.join(ws.work, 'plain'), { skills: { a: skill('a') } });
    await expect(marketplaces(ws).add(plain)).rejects.toMatchObject({ code: 'MARKETPLACE_INDEX_MISSING' });
    const nested = gitRepo(path.join(ws.work, 'nested'), {
      collection: { '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'n', plugins: [] }) } },
    });
    await expect(marketplaces(ws).add(nested)).rejects.toMatchObject({
      code: 'MARKETPLACE_INDEX_MISSING',
      message: expect.stringMatching(/collection\/\.claude-plugin\/marketplace\.json is one folder down/),
    });
    await marketplaces(ws).add(market);
    await expect(marketplaces(ws).add(market)).rejects.toMatchObject({ code: 'MARKETPLACE_EXISTS' });
    await expect(marketplaces(ws).install('nope@acme')).rejects.toMatchObject({ code: 'MARKETPLACE_PLUGIN_NOT_FOUND' });
    expect(fs.readdirSync(path.join(ws.places.dataDir, 'marketplaces'))).toEqual(['acme']);
    expect(pluginFolders(ws)).toEqual([]);
    // A repository that is only an index, installed as a plugin, is pointed the right way.
    const indexOnly = gitRepo(path.join(ws.work, 'index-only'), {
      '.claude-plugin': { 'marketplace.json': JSON.stringify({ name: 'index-only', plugins: [{ name: 'p', source: './p' }] }) },
      p: { skills: { a: skill('a') } },
    });
    await expect(ws.manager.install(indexOnly)).rejects.toMatchObject({
      code: 'PLUGIN_IS_A_MARKETPLACE',
      message: expect.stringMatching(/loadout marketplace add/),
    });
    expect(pluginFolders(ws)).toEqual([]);
  });

  it('reads a Codex marketplace with local sources', async () => {
    const ws = workspace();
    const market = gitRepo(path.join(ws.work, 'codex-market'), {
      '.agents': {
        plugins: {
          'marketplace.json': JSON.stringify({
            name: 'codex-tools',
            plugins: [
              {
                name: 'lint',
                source: { source: 'local', path: './plugins/lint' },
                policy: { installation: 'AVAILABLE' },
                category: 'Coding',
              },
              { name: 'hidden', source: { source: 'local', path: './plugins/hidden' }, policy: { installation: 'NOT_AVAILABLE' } },
            ],
          }),
        },
      },
      plugins: {
        lint: {
          '.codex-plugin': { 'plugin.json': JSON.stringify({ name: 'lint', skills: './skills/' }) },
          skills: { 'lint-code': skill('lint-code') },
        },
        hidden: { skills: { h: skill('h') } },
      },
    });
    expect(await marketplaces(ws).add(market)).toMatchObject({ name: 'codex-tools', format: 'codex', plugins: 2 });
    expect(
      marketplaces(ws)
        .search('coding')
        .map((hit) => hit.id),
    ).toEqual(['lint@codex-tools']);
    await expect(marketplaces(ws).install('hidden@codex-tools')).rejects.toMatchObject({ code: 'MARKETPLACE_SOURCE_UNSUPPORTED' });
    await marketplaces(ws).install('lint@codex-tools');
    expect((await session(ws)).skills.filter((k) => k.plugin === 'lint').map((k) => k.id)).toEqual(['lint-code']);
  });
});
