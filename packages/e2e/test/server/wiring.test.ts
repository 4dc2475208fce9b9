import { defineRoute, defineRpcMethod, HttpRoutes, RpcMethods } from '@loadout/api';
import { loadoutModules } from '@loadout/app';
import { closeKernel, createKernel, loadModules, type LoadoutModule, resolveAll, token } from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { startServer } from '@loadout/server';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { placesIn, sendRequest, TOKEN, workspaceTree } from './support.js';

// Routes and JSON-RPC methods declare the services they need; the server resolves them once,
// when it is built, so a service nobody registered stops the start and names who needed it.

interface RecipeBook {
  titles(): string[];
}
const RecipeBook = token<RecipeBook>('recipes.book');

const recipeRoute = defineRoute({
  method: 'GET',
  path: '/api/recipes/:title',
  access: 'public',
  deps: { book: RecipeBook },
  params: z.strictObject({ title: z.string().max(64) }),
  query: z.object({ limit: z.coerce.number().int().min(1).max(10).optional() }),
  // Typed from the declarations: `book` is a RecipeBook, `params.title` a string, `query.limit` a number.
  handle: ({ params, query }, { book }) =>
    book
      .titles()
      .filter((title) => title.startsWith(params.title))
      .slice(0, query.limit ?? 10),
});
const recipeMethod = defineRpcMethod({
  name: 'recipes.titles',
  params: z.strictObject({}),
  deps: { book: RecipeBook },
  handler: (_params, { book }) => book.titles(),
});

/** The route and the method a `recipes` package would declare, each alone. */
const recipesFace: LoadoutModule = { name: 'recipes', routes: async () => [recipeRoute] };
const recipesMethod: LoadoutModule = { name: 'recipes', rpcMethods: async () => [recipeMethod] };
const recipeBook: LoadoutModule = {
  name: 'recipe-book',
  now: (container) => container.register(RecipeBook, { useValue: { titles: () => ['bread', 'broth', 'cake'] } }),
};

const containers: DependencyContainer[] = [];
afterEach(async () => {
  for (const container of containers.splice(0)) {
    closeKernel(container);
    await container.dispose();
  }
  removeTestdirs();
});

function app(modules: readonly LoadoutModule[]): DependencyContainer {
  const container = createKernel({ places: placesIn(testdir(workspaceTree())) }, [...loadoutModules, ...modules]);
  containers.push(container);
  return container;
}

/** What starting the server over `container` failed with. */
async function startFailure(container: DependencyContainer): Promise<Error> {
  const started = await startServer(container, { port: 0, token: TOKEN, log: () => undefined }).then(
    async (server) => {
      await server.close();
      return null;
    },
    (error: unknown) => error as Error,
  );
  if (started === null) throw new Error('the server started');
  return started;
}

describe('declared dependencies', () => {
  it("starting the app without one service a route needs fails at start with the route's name", async () => {
    const error = await startFailure(app([recipesFace]));
    expect(isLoadoutError(error) && error.code).toBe('WIRING');
    expect(error.message).toContain(
      'the route GET /api/recipes/:title (from recipes) needs recipes.book (as "book"), which no module registers',
    );
  });

  it("a JSON-RPC method without its service fails the start with the method's name", async () => {
    const error = await startFailure(app([recipesMethod]));
    expect(error.message).toContain('the JSON-RPC method recipes.titles (from recipes) needs recipes.book');
  });

  it('with the service, the handler gets it and its input as the schemas made it', async () => {
    const server = await startServer(app([recipesFace, recipesMethod, recipeBook]), { port: 0, token: TOKEN, log: () => undefined });
    try {
      expect((await sendRequest(server.port, 'GET', '/api/recipes/br?limit=1', { token: null })).body).toEqual(['bread']);
      expect(await sendRequest(server.port, 'GET', '/api/recipes/br?limit=zero', { token: null })).toMatchObject({
        status: 400,
        body: { error: { code: 'REQUEST_INVALID' } },
      });
      expect(
        (await sendRequest(server.port, 'POST', '/rpc', { body: { jsonrpc: '2.0', id: 1, method: 'recipes.titles' } })).body,
      ).toMatchObject({ result: ['bread', 'broth', 'cake'] });
    } finally {
      await server.close();
    }
  });

  it('two contributors of one route, or of one method name, are both named', async () => {
    const tasksAgain: LoadoutModule = {
      name: 'recipes',
      routes: async () => [defineRoute({ method: 'GET', path: '/api/tasks/:name', access: 'public', handle: () => [] })],
    };
    const route = (await startFailure(app([tasksAgain]))).message;
    expect(route).toMatch(/the route GET \/api\/tasks\/:(dirName|name) \(from (tasks|recipes)\) is contributed twice/);
    expect(route).toContain('recipes');
    expect(route).toContain('tasks');

    const stateAgain: LoadoutModule = {
      name: 'recipes',
      rpcMethods: async () => [defineRpcMethod({ name: 'capability.state', params: z.strictObject({}), handler: () => [] })],
    };
    expect((await startFailure(app([stateAgain]))).message).toMatch(
      /the JSON-RPC method capability.state is contributed twice: by (state and by recipes|recipes and by state)/,
    );
  });
});

describe('one module shape', () => {
  it('a module declares in one object what loads now, what later, its routes and its methods; each part loads only where it is needed', async () => {
    const loaded: string[] = [];
    const pantry: LoadoutModule = {
      name: 'pantry',
      now: (container) => {
        loaded.push('now');
        container.register(RecipeBook, { useValue: { titles: () => ['jam'] } });
      },
      later: async () => {
        loaded.push('later');
        return () => undefined;
      },
      routes: async () => {
        loaded.push('routes');
        return [recipeRoute];
      },
      rpcMethods: async () => {
        loaded.push('methods');
        return [recipeMethod];
      },
    };
    // A session's container: what loads now only.
    const session = app([pantry]);
    expect(loaded).toEqual(['now']);
    // A command that applies: the later part too, never the routes or methods.
    await loadModules([pantry]);
    app([pantry]);
    expect(loaded).toEqual(['now', 'later', 'now']);
    expect(resolveAll(session, HttpRoutes).some((route) => route.contributor === 'pantry')).toBe(false);

    // The server: every part, its route and method named after the module.
    const server = await startServer(session, { port: 0, token: TOKEN, log: () => undefined });
    try {
      expect(loaded.filter((part) => part === 'routes' || part === 'methods').sort()).toEqual(['methods', 'routes']);
      expect(resolveAll(session, HttpRoutes).find((route) => route.path === '/api/recipes/:title')?.contributor).toBe('pantry');
      expect(resolveAll(session, RpcMethods).find((method) => method.name === 'recipes.titles')?.contributor).toBe('pantry');
      expect((await sendRequest(server.port, 'GET', '/api/recipes/j', { token: null })).body).toEqual(['jam']);
    } finally {
      await server.close();
    }
  });
});
