import { contribute, type LoadoutModule, resolveAll, token } from '@loadout/kernel';
import type { DependencyContainer } from 'tsyringe';

/**
 * A package's faces (its HTTP routes, JSON-RPC methods), contributed as a loader rather than as
 * values: the routes' request schemas and handlers are code only the server runs, so a one-shot
 * command (`loadout session`) never compiles nor evaluates them. The server loads every contributed
 * loader with {@link loadServerFaces} before it reads `HttpRoutes` or `RpcMethods`.
 *
 * @example
 * contributeServerFaces(container, async () => {
 *   const { taskRoutes } = await import('./taskRoutes.js');
 *   return (c) => {
 *     for (const route of taskRoutes) contribute(c, HttpRoutes, route);
 *   };
 * });
 */
export const ServerFaces = token<() => Promise<LoadoutModule>>('api.serverFaces');

/** Contributes a loader of a package's faces (see {@link ServerFaces}). */
export function contributeServerFaces(container: DependencyContainer, load: () => Promise<LoadoutModule>): void {
  contribute(container, ServerFaces, load);
}

const loaded = new WeakMap<DependencyContainer, Promise<void>>();

/**
 * Loads every contributed face and registers it on `container`, once per container (a second call
 * waits for the first). Whoever reads `HttpRoutes` or `RpcMethods` awaits this first.
 */
export function loadServerFaces(container: DependencyContainer): Promise<void> {
  let loading = loaded.get(container);
  if (loading === undefined) {
    loading = (async () => {
      const faces = await Promise.all(resolveAll(container, ServerFaces).map((load) => load()));
      for (const face of faces) face(container);
    })();
    loaded.set(container, loading);
  }
  return loading;
}
