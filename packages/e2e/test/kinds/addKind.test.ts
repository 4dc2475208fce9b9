import path from 'node:path';
import { loadoutModules } from '@loadout/app';
import { SessionLoader } from '@loadout/kernel';
import { removeTestdirs } from '@loadout/files/testing';
import type { CapabilityStateEntry } from '@loadout/state';
import { afterEach, describe, expect, it } from 'vitest';
import { recipesModule } from '../../fixtures/kind-recipes/src/index.js';
import { TestServer, workspaceTree } from '../server/support.js';

// docs/architecture.md, "Adding a kind of capability", followed to the letter: the fixture package
// fixtures/kind-recipes depends on the kernel only, and the line below is the one registration.
const modules = [...loadoutModules, recipesModule];

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  removeTestdirs();
});

const recipe = (name: string, description: string) => ({
  'RECIPE.md': `---\nname: ${name}\ndescription: ${description}\n---\nMix, then wait.\n`,
  'flour.txt': '250 g\n',
});

interface SessionJson {
  roots: { dir: string }[];
  recipes?: { id: string; name: string; level: string; plugin: string | null; path: string }[];
  recipeBlock?: string;
  skills: { id: string }[];
  diagnostics: { code: string }[];
}
interface StateJson {
  result: { capabilities: CapabilityStateEntry[] };
}

async function session(s: TestServer, project?: string): Promise<SessionJson> {
  const answer = await s.request('GET', `/api/session${project === undefined ? '' : `?project=${encodeURIComponent(project)}`}`);
  expect(answer.status).toBe(200);
  return answer.body as SessionJson;
}

function rpc(s: TestServer, method: string, params: unknown) {
  return s.request('POST', '/rpc', { body: { jsonrpc: '2.0', id: 1, method, params } });
}

describe('a kind added by one package and one registration line', () => {
  it('is listed in a session, switched off and on by the state writer, and shown in /api/session', async () => {
    const tree = workspaceTree();
    const capabilities = tree.capabilities as Record<string, unknown>;
    server = await TestServer.start({
      modules,
      tree: {
        ...tree,
        capabilities: {
          ...capabilities,
          recipes: { pancakes: recipe('Pancakes', 'Thin ones, for Sunday.'), bread: recipe('bread', 'A plain loaf.') },
        },
        work: { shop: { '.agents': { recipes: { soup: recipe('soup', "The shop's soup.") } } } },
      },
    });
    const project = path.join(server.home, 'work', 'shop');

    // Listed: the session the kernel opens has the kind, its records and its block.
    const opened = await server.container.resolve(SessionLoader).open({ project });
    expect(opened.recordsOf('recipe').map((record) => [record.id, record.level])).toEqual([
      ['bread', 'global'],
      ['pancakes', 'global'],
      ['soup', 'project'],
    ]);
    opened.dispose();

    // Shown: /api/session carries the kind under its session key and its section's text.
    const before = await session(server, project);
    expect(before.recipes?.map((record) => record.id)).toEqual(['bread', 'pancakes', 'soup']);
    expect(before.recipes?.find((record) => record.id === 'pancakes')).toMatchObject({ name: 'Pancakes', level: 'global', plugin: null });
    expect(before.recipeBlock).toContain('- Pancakes: Thin ones, for Sunday.');
    expect(before.skills.map((skill) => skill.id)).toContain('owner-skill');
    expect(before.diagnostics).toEqual([]);

    // The state lists every capability of the new kind, with why it is on.
    const state = (await rpc(server, 'capability.state', { project })).body as StateJson;
    const recipes = state.result.capabilities.filter((entry) => entry.kind === 'recipe').sort((a, b) => a.id.localeCompare(b.id));
    expect(recipes.map((entry) => [entry.id, entry.level, entry.enabled, entry.decidedBy])).toEqual([
      ['bread', 'global', true, 'declared-default'],
      ['pancakes', 'global', true, 'declared-default'],
      ['soup', 'project', true, 'declared-default'],
    ]);

    // Switched off for every project by the state writer: out of the session and its block.
    const off = await rpc(server, 'capability.set', { capabilities: [{ kind: 'recipe', id: 'pancakes', enabled: false }] });
    expect(off.body).toMatchObject({ result: { errors: [] } });
    const without = await session(server, project);
    expect(without.recipes?.map((record) => record.id)).toEqual(['bread', 'soup']);
    expect(without.recipeBlock).not.toContain('Pancakes');
    expect((await session(server)).recipes?.map((record) => record.id)).toEqual(['bread']);
    const stateOff = (await rpc(server, 'capability.state', { project })).body as StateJson;
    expect(stateOff.result.capabilities.find((entry) => entry.kind === 'recipe' && entry.id === 'pancakes')).toMatchObject({
      enabled: false,
      decidedBy: 'global-default',
    });

    // And on again.
    const on = await rpc(server, 'capability.set', { capabilities: [{ kind: 'recipe', id: 'pancakes', enabled: true }] });
    expect(on.body).toMatchObject({ result: { errors: [] } });
    expect((await session(server, project)).recipes?.map((record) => record.id)).toEqual(['bread', 'pancakes', 'soup']);
  });
});
