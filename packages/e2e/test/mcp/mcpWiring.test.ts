import { loadoutModules } from '@loadout/app';
import { jobsModule } from '@loadout/jobs';
import { closeKernel, createKernel, loadModules } from '@loadout/kernel';
import { isLoadoutError } from '@loadout/files';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { startServer } from '@loadout/server';
import type { DependencyContainer } from 'tsyringe';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { placesIn, TOKEN, workspaceTree } from '../server/support.js';

// MCP declares the services it needs on its `/mcp` routes: a server built without one does not
// start, and says which route needed what, instead of failing the first MCP call.

const containers: DependencyContainer[] = [];
beforeAll(() => loadModules(loadoutModules));
afterEach(async () => {
  for (const container of containers.splice(0)) {
    closeKernel(container);
    await container.dispose();
  }
  removeTestdirs();
});

describe('MCP over HTTP, wired at start', () => {
  it('a server without the job scheduler fails to start, naming the /mcp route and the service', async () => {
    const container = createKernel(
      { places: placesIn(testdir(workspaceTree())) },
      loadoutModules.filter((module) => module !== jobsModule),
    );
    containers.push(container);
    const failure = await startServer(container, { port: 0, token: TOKEN, log: () => undefined }).then(
      async (server) => {
        await server.close();
        return null;
      },
      (error: unknown) => error as Error,
    );
    expect(failure !== null && isLoadoutError(failure) && failure.code).toBe('WIRING');
    expect(failure?.message).toMatch(
      /the route (POST|GET|DELETE) \/mcp \(from mcp\) needs JobScheduler \(as "jobs"\), which no module registers/,
    );
  });
});
