import fs from 'node:fs';
import path from 'node:path';
import { SessionLoader } from '@loadout/kernel';
import { git, gitRepo, skillMarkdown } from '@loadout/kernel/testing';
import { removeTestdirs } from '@loadout/files/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { agentsMarketplaceRepo, skillCollectionsRepo } from '../src/testing/index.js';
import { closeWorkspaces, pluginFolders, session, type Workspace, workspace } from './pluginWorkspace.js';

afterEach(() => {
  closeWorkspaces();
  removeTestdirs();
});

/** What a refused install must leave as it was: no clone or staging folder, no row, no lock entry. */
function nothingLeft(ws: Workspace): void {
  expect(fs.readdirSync(ws.places.pluginsDir)).toEqual([]);
  expect(ws.registry.list()).toEqual([]);
  expect(git(ws.places.capabilitiesDir, 'status', '--porcelain')).toBe('');
}

const curated = ['gh-address-comments', 'notion-knowledge', 'playwright'];
const experimental = ['create-plan', 'linear'];

describe('an install says what it loaded', () => {
  it('counts every kind the session read, and names the plugin in each diagnostic', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'mixed'), {
      skills: {
        good: { 'SKILL.md': skillMarkdown({ name: 'good', description: 'A good skill' }) },
        other: { 'SKILL.md': skillMarkdown({ name: 'other', description: 'Another' }) },
        broken: { 'SKILL.md': '---\nname: [unclosed\n---\nbody\n' },
      },
      commands: { 'lint.md': '---\ndescription: Lint\n---\nLint it.\n' },
    });
    const entry = await ws.manager.install(repo);
    expect(entry.summary).toBe('2 skills, 1 command');
    expect(entry.loaded).toEqual([
      { kind: 'skill', folder: 'skills', count: 2, held: 0 },
      { kind: 'command', folder: 'commands', count: 1, held: 0 },
    ]);
    const broken = entry.diagnostics.filter((diagnostic) => diagnostic.path?.includes('broken'));
    expect(broken.length).toBeGreaterThan(0);
    for (const diagnostic of entry.diagnostics) expect(diagnostic.message).toContain('plugin mixed');
  });
});

describe('an install reads its plugin once (issue 30: install + first apply speed)', () => {
  it('the reading that finds it loads something, made where it is installed, serves the report too', async () => {
    const ws = workspace();
    const repo = gitRepo(path.join(ws.work, 'many'), {
      skills: Object.fromEntries(
        ['a', 'b', 'c'].map((name) => [name, { 'SKILL.md': skillMarkdown({ name, description: `Skill ${name}` }) }]),
      ),
    });
    // The session's own loader, its scans counted: each is one walk of the plugin's folders.
    const loader = ws.container.resolve(SessionLoader);
    const scanned: string[][] = [];
    const scanRoots = loader.scanRoots.bind(loader);
    loader.scanRoots = (roots, ...rest) => {
      scanned.push(roots.map((root) => root.dir));
      return scanRoots(roots, ...rest);
    };
    const entry = await ws.manager.install(repo);
    expect(entry.summary).toBe('3 skills');
    expect(scanned).toEqual([[path.join(ws.places.pluginsDir, 'many')]]);
  });
});

describe('an install that loads nothing is refused with the fix first', () => {
  it('a repository of skill collections (openai/skills) names `--path` for each collection and changes nothing', async () => {
    const ws = workspace();
    const repo = skillCollectionsRepo(path.join(ws.work, 'skills'), { '.curated': curated, '.experimental': experimental });
    const refusal = ws.manager.install(repo);
    await expect(refusal).rejects.toMatchObject({ code: 'PLUGIN_IS_A_COLLECTION', category: 'invalid' });
    const message = ((await refusal.catch((error: Error) => error)) as Error).message;
    expect(message).toMatch(/^install a collection of it: `loadout plugins install file:\/\/\S+ --path skills\/\.curated` \(3 skills\) or/);
    expect(message).toContain('--path skills/.experimental` (2 skills)');
    expect(message).toContain('--list');
    nothingLeft(ws);
  });

  it('a collection installs with --path: its folders are its skills, and the session reads them', async () => {
    const ws = workspace();
    const repo = skillCollectionsRepo(path.join(ws.work, 'skills'), { '.curated': curated, '.experimental': experimental });
    const entry = await ws.manager.install(repo, { path: 'skills/.curated', name: 'curated' });
    expect(entry.summary).toBe('3 skills');
    const s = await session(ws);
    expect(s.skills.filter((skill) => skill.plugin === 'curated').map((skill) => skill.id)).toEqual(curated);
    // A second collection of the same repository is a folder of the same clone.
    const second = await ws.manager.install(repo, { path: 'skills/.experimental', name: 'experimental' });
    expect(second.summary).toBe('2 skills');
    expect(pluginFolders(ws)).toHaveLength(1);
  });

  it('a marketplace installed as a plugin (wshobson/agents) says to add it as a marketplace, and changes nothing', async () => {
    const ws = workspace();
    const repo = agentsMarketplaceRepo(path.join(ws.work, 'agents'), ['python', 'golang']);
    await expect(ws.manager.install(repo)).rejects.toMatchObject({
      code: 'PLUGIN_IS_A_MARKETPLACE',
      message: expect.stringMatching(/^this is a marketplace: `loadout marketplace add file:\/\/\S+agents`, then/),
    });
    nothingLeft(ws);
  });

  it('--allow-empty installs it anyway, saying it loads nothing', async () => {
    const ws = workspace();
    const repo = skillCollectionsRepo(path.join(ws.work, 'skills'), { '.curated': curated });
    const entry = await ws.manager.install(repo, { allowEmpty: true });
    expect(entry.summary).toBe('nothing');
    expect(entry.loaded).toEqual([]);
    expect(entry.diagnostics.map((diagnostic) => diagnostic.code)).toContain('PLUGIN_SKILLS_NOT_IN_LAYOUT');
  });
});

describe('listInstallable', () => {
  it('lists the collections of a repository and the plugins of its marketplace, installing nothing', async () => {
    const ws = workspace();
    const skills = skillCollectionsRepo(path.join(ws.work, 'skills'), { '.curated': curated, '.experimental': experimental });
    const listing = await ws.manager.listInstallable(skills);
    expect(listing.plugin.summary).toBe('nothing');
    expect(listing.collections).toEqual([
      { path: 'skills/.curated', skills: curated },
      { path: 'skills/.experimental', skills: experimental },
    ]);
    expect(listing.marketplace).toBeNull();
    const agents = agentsMarketplaceRepo(path.join(ws.work, 'agents'), ['python', 'golang']);
    const market = await ws.manager.listInstallable(agents);
    expect(market.marketplace).toEqual({
      file: '.claude-plugin/marketplace.json',
      name: 'agents-market',
      plugins: [
        { name: 'python', description: 'The python plugin', path: 'plugins/python' },
        { name: 'golang', description: 'The golang plugin', path: 'plugins/golang' },
      ],
    });
    nothingLeft(ws);
  });
});
