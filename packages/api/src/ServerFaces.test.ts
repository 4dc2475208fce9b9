import { contribute, createKernel, resolveAll, resolvePlaces } from '@loadout/kernel';
import { describe, expect, it } from 'vitest';
import { HttpRoutes, reply } from './ApiRoute.js';
import { contributeServerFaces, loadServerFaces } from './ServerFaces.js';

const route = (path: string) => ({ method: 'GET' as const, path, access: 'token' as const, handle: () => reply(200, { path }) });

describe('server faces', () => {
  it('are not there until the server loads them, then every package contributes its own, once', async () => {
    let loads = 0;
    const container = createKernel({ places: resolvePlaces({}, '/nowhere') }, [
      (c) => contribute(c, HttpRoutes, route('/api/eager')),
      (c) =>
        contributeServerFaces(c, async () => {
          loads += 1;
          return (into) => contribute(into, HttpRoutes, route('/api/first'));
        }),
      (c) =>
        contributeServerFaces(c, async () => {
          loads += 1;
          return (into) => {
            contribute(into, HttpRoutes, route('/api/second'));
            contribute(into, HttpRoutes, route('/api/third'));
          };
        }),
    ]);
    // A one-shot command's container: only what was contributed as a value, no loader run.
    expect(resolveAll(container, HttpRoutes).map((r) => r.path)).toEqual(['/api/eager']);
    expect(loads).toBe(0);

    await Promise.all([loadServerFaces(container), loadServerFaces(container)]);
    await loadServerFaces(container);
    expect(resolveAll(container, HttpRoutes).map((r) => r.path)).toEqual(['/api/eager', '/api/first', '/api/second', '/api/third']);
    expect(loads).toBe(2);
  });

  it('are loaded for each container on its own', async () => {
    const module = (c: Parameters<typeof contributeServerFaces>[0]) => contributeServerFaces(c, async () => (into) => contribute(into, HttpRoutes, route('/api/x')));
    const one = createKernel({ places: resolvePlaces({}, '/nowhere') }, [module]);
    const two = createKernel({ places: resolvePlaces({}, '/nowhere') }, [module]);
    await loadServerFaces(one);
    expect(resolveAll(one, HttpRoutes)).toHaveLength(1);
    expect(resolveAll(two, HttpRoutes)).toHaveLength(0);
  });
});
